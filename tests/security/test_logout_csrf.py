"""Attack 9: logout CSRF.

``GET /oauth2/logout`` without an ``id_token_hint`` ended the browser's session at once, so
any page the person visited could sign them out of the provider and of every application
(an ``<img src=".../oauth2/logout">`` is enough). OIDC RP-Initiated Logout 1.0 §2 lets the
provider ask the person first; the specification this provider follows expects the
immediate logout, so that stays the default (an accepted risk, in the threat model) and
``SVC_LOGOUT_CONFIRMATION=true`` turns the question on: a request without a valid hint of
the signed-in person then shows a "Sign out?" page whose form posts a one-time token bound
to the session, and only that confirmed POST ends the session.
"""

from __future__ import annotations

import re
import time

import httpx
import pytest

from idp_common.crypto.jwt import sign_jwt
from idp_common.crypto.keys import load_key_set
from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration
CROSS_SITE = {"Sec-Fetch-Site": "cross-site", "Referer": "https://attacker.example/cat.html"}
TOKEN_FIELD = re.compile(r'name="confirmation" value="([A-Za-z0-9_-]+)"')


def id_token(stack: Stack, client_id: str, subject: str, sid: str) -> str:
    now = int(time.time())
    claims = {"iss": stack.issuer, "sub": subject, "aud": client_id, "sid": sid}
    return sign_jwt({**claims, "iat": now, "exp": now + 600}, load_key_set(stack.key_dir))


def signed_in(stack: Stack) -> tuple[records.TestUser, str, str]:
    person = records.create_user(stack)
    cookie, session = records.create_browser_session(stack, person.id)
    return person, cookie, session.sid


def assert_confirmation_page(answer: httpx.Response) -> str:
    """The page asks, cannot be framed, is never cached; returns the form's token."""
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["cache-control"] == "no-store"
    page = answer.text
    assert re.search(r'<form method="post" action="[^"]*/oauth2/logout">', page), page
    assert "Stay signed in</a>" in page
    found = TOKEN_FIELD.search(page)
    assert found, page
    return found.group(1)


def test_with_confirmation_on_a_cross_site_logout_only_asks(stack: Stack) -> None:
    with stack.extra_service("token", {"SVC_LOGOUT_CONFIRMATION": "true"}) as token_url:
        _, cookie, sid = signed_in(stack)
        _, other_cookie, other_sid = signed_in(stack)
        with httpx.Client(base_url=token_url, timeout=20) as client:
            asked = client.get(
                "/oauth2/logout", headers={**CROSS_SITE, "Cookie": f"svc_session={cookie}"}
            )
            assert asked.status_code != 302, "a cross-site GET without a hint signed the person out"
            assert records.session_exists(stack, sid)
            first = assert_confirmation_page(asked)

            # a cross-site form post without the page's token only asks again
            forged = client.post(
                "/oauth2/logout",
                content=b"",
                headers={
                    **CROSS_SITE,
                    "Cookie": f"svc_session={cookie}",
                    "Content-Type": "application/x-www-form-urlencoded",
                },
            )
            second = assert_confirmation_page(forged)
            assert records.session_exists(stack, sid)

            # the token is bound to its session: another browser cannot use it
            stolen = client.post(
                "/oauth2/logout",
                data={"confirmation": second},
                headers={"Cookie": f"svc_session={other_cookie}"},
            )
            assert_confirmation_page(stolen)
            assert records.session_exists(stack, other_sid)

            # the person confirms with the newest page's form: signed out
            confirmed = client.post(
                "/oauth2/logout",
                data={"confirmation": second},
                headers={"Cookie": f"svc_session={cookie}"},
            )
            assert confirmed.status_code == 303, confirmed.text
            assert confirmed.headers["location"] == f"{stack.issuer}/auth/logged-out"
            assert "svc_session=" in confirmed.headers["set-cookie"]
            assert not records.session_exists(stack, sid)
            assert first != second


def test_with_confirmation_on_the_hint_of_the_signed_in_person_signs_out_at_once(
    stack: Stack,
) -> None:
    app = records.create_client(stack, skip_consent=True)
    with stack.extra_service("token", {"SVC_LOGOUT_CONFIRMATION": "true"}) as token_url:
        person, cookie, sid = signed_in(stack)
        stranger, _, stranger_sid = signed_in(stack)
        with httpx.Client(base_url=token_url, timeout=20) as client:
            # a valid ID token of someone else is no proof that this person wants out
            theirs = client.get(
                "/oauth2/logout",
                params={"id_token_hint": id_token(stack, app.client_id, stranger.id, stranger_sid)},
                headers={"Cookie": f"svc_session={cookie}"},
            )
            assert_confirmation_page(theirs)
            assert records.session_exists(stack, sid)

            values = {
                "id_token_hint": id_token(stack, app.client_id, person.id, sid),
                "post_logout_redirect_uri": app.post_logout_redirect_uri,
                "state": "s1",
            }
            mine = client.post(
                "/oauth2/logout", data=values, headers={"Cookie": f"svc_session={cookie}"}
            )
            assert mine.status_code == 303, mine.text
            assert mine.headers["location"] == f"{app.post_logout_redirect_uri}?state=s1"
            assert not records.session_exists(stack, sid)


def test_by_default_a_logout_without_a_hint_ends_the_session_at_once(stack: Stack) -> None:
    """The specification's behaviour, kept as the default."""
    _, cookie, sid = signed_in(stack)
    answer = httpx.get(
        stack.service_url("token") + "/oauth2/logout",
        headers={**CROSS_SITE, "Cookie": f"svc_session={cookie}"},
        timeout=20,
    )
    assert answer.status_code == 302, answer.text
    assert not records.session_exists(stack, sid)
