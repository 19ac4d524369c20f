"""``ui_locales`` of the authorization request (OIDC Core §3.1.2.1): kept in
order for the sign-in page, never an error."""

from __future__ import annotations

import pytest

from idp_common.protocol.oidc_authorize import parse_request, parse_ui_locales

CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, ()),
        ("", ()),
        ("de", ("de",)),
        ("xx de", ("xx", "de")),
        ("fr-CA  fr en", ("fr-CA", "fr", "en")),
        ("de de de", ("de",)),
        ("* <b> de-ÄT 12 de", ("de",)),
        ("de-" + "a" * 40 + " es", ("es",)),
    ],
)
def test_parse_ui_locales(raw: str | None, expected: tuple[str, ...]) -> None:
    assert parse_ui_locales(raw) == expected


def test_at_most_32_tags_are_kept() -> None:
    raw = " ".join(f"x-{i:03d}" for i in range(60))
    assert len(parse_ui_locales(raw)) == 32


def test_the_request_carries_them() -> None:
    req = parse_request(
        {
            "response_type": "code",
            "scope": "openid",
            "code_challenge": CHALLENGE,
            "code_challenge_method": "S256",
            "ui_locales": "xx de",
        },
        client_id="app",
        redirect_uri="https://app.example/cb",
        public_client=True,
    )
    assert req.ui_locales == ("xx", "de")
