"""RFC 6749 §5.2 error objects, RFC 6750 challenges."""

from __future__ import annotations

import pytest

from idp_common.protocol import rfc6749_errors as e


@pytest.mark.parametrize(
    ("cls", "error", "status"),
    [
        (e.InvalidRequest, "invalid_request", 400),
        (e.InvalidClient, "invalid_client", 401),
        (e.InvalidGrant, "invalid_grant", 400),
        (e.UnauthorizedClient, "unauthorized_client", 400),
        (e.UnsupportedGrantType, "unsupported_grant_type", 400),
        (e.InvalidScope, "invalid_scope", 400),
        (e.UnsupportedResponseType, "unsupported_response_type", 400),
        (e.LoginRequired, "login_required", 400),
        (e.ConsentRequired, "consent_required", 400),
        (e.RequestNotSupported, "request_not_supported", 400),
        (e.ServerError, "server_error", 500),
        (e.TemporarilyUnavailable, "temporarily_unavailable", 503),
        (e.InvalidToken, "invalid_token", 401),
    ],
)
def test_codes_and_statuses(cls: type[e.OAuth2Error], error: str, status: int) -> None:
    exc = cls()
    assert exc.error == error
    assert exc.status_code == status
    assert exc.to_body() == {"error": error}
    assert cls("why").to_body() == {"error": error, "error_description": "why"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain words", "plain words"),
        ('say "hi"', "say ?hi?"),
        ("back\\slash", "back?slash"),
        ("new\nline", "new?line"),
        ("café", "caf?"),
    ],
)
def test_description_charset(text: str, expected: str) -> None:
    assert e.InvalidRequest(text).description == expected


def test_invalid_client_basic_challenge() -> None:
    assert e.InvalidClient("x", basic=True).headers == {"WWW-Authenticate": 'Basic realm="idp"'}
    assert e.InvalidClient("x").headers == {}


def test_bearer_challenges() -> None:
    assert e.InvalidToken("expired").headers["WWW-Authenticate"] == (
        'Bearer realm="idp", error="invalid_token", error_description="expired"'
    )
    assert e.InsufficientScope("openid").headers["WWW-Authenticate"] == (
        'Bearer realm="idp", error="insufficient_scope", scope="openid"'
    )
    assert e.InsufficientScope("openid").status_code == 403


def test_too_many_requests() -> None:
    exc = e.TooManyRequests(0)
    assert exc.status_code == 429
    assert exc.error == "temporarily_unavailable"
    assert exc.headers["Retry-After"] == "1"
