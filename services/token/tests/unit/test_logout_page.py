"""The "Sign out?" page (token_service.logout_page; docs/security.md, attack 9): every value
escaped, never framed, and a form whose answer may redirect to the application."""

from __future__ import annotations

from token_service.logout_page import confirmation_page

ISSUER = "https://id.example.com"


def test_the_form_carries_the_token_and_the_request_values_escaped() -> None:
    page = confirmation_page(
        issuer_base=ISSUER,
        token="tok-123",
        values={
            "post_logout_redirect_uri": "https://app.example/bye",
            "state": '"><script>alert(1)</script>',
            "client_id": "app",
            "id_token_hint": "never-carried",
        },
        target="https://app.example/bye?state=x",
    )
    body = page.content.decode()
    assert f'<form method="post" action="{ISSUER}/oauth2/logout">' in body
    assert '<input type="hidden" name="confirmation" value="tok-123">' in body
    assert 'name="state" value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in body
    assert "<script>" not in body
    assert "never-carried" not in body
    assert f'<a href="{ISSUER}/">Stay signed in</a>' in body


def test_the_page_cannot_be_framed_and_may_post_to_the_application() -> None:
    page = confirmation_page(
        issuer_base=ISSUER, token="t", values={}, target="https://app.example:8443/bye"
    )
    assert page.status_code == 200
    assert page.headers["X-Frame-Options"] == "DENY"
    csp = page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp
    assert "default-src 'none'" in csp
    assert "form-action 'self' https://app.example:8443" in csp
