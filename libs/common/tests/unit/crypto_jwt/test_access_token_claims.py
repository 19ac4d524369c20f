"""idp_common.crypto.jwt.access_token_claims (RFC 9068): members, TTL, scope values."""

from __future__ import annotations

from typing import Any

import pytest

from idp_common.crypto.jwt import (
    InvalidToken,
    access_token_claims,
    sign_jwt,
)
from libs.common.tests.unit.crypto_jwt.support import (
    AUDIENCE,
    ISSUER,
    KEYS,
    NOW,
    verify,
)


def claims_for_console(
    scope: list[str] | tuple[str, ...], jti: str, **optional: Any
) -> dict[str, Any]:
    """The access token claims of ``user-1`` for the console, issued at ``NOW``."""
    return access_token_claims(
        issuer=ISSUER,
        subject="user-1",
        audience=AUDIENCE,
        client_id="console",
        scope=scope,
        now=NOW,
        jti=jti,
        **optional,
    )


def test_access_token_claims_minimal() -> None:
    result = claims_for_console(["openid", "idp:users:read", "openid"], "jti-1")
    assert result == {
        "iss": ISSUER,
        "sub": "user-1",
        "aud": AUDIENCE,
        "exp": NOW + 600,
        "iat": NOW,
        "jti": "jti-1",
        "client_id": "console",
        "scope": "openid idp:users:read",
    }


def test_access_token_claims_optional_members_and_ttl() -> None:
    result = claims_for_console(
        (),
        "jti-2",
        ttl=60,
        auth_time=NOW - 30,
        acr="urn:idp:acr:2fa",
        amr=["pwd", "otp", "mfa"],
        sid="c2lk",
    )
    assert result["exp"] == NOW + 60
    assert result["scope"] == ""
    assert result["auth_time"] == NOW - 30
    assert result["acr"] == "urn:idp:acr:2fa"
    assert result["amr"] == ["pwd", "otp", "mfa"]
    assert result["sid"] == "c2lk"


@pytest.mark.parametrize("bad", [["two words"], [""]])
def test_access_token_claims_refuse_bad_scope_values(bad: list[str]) -> None:
    with pytest.raises(ValueError, match="scope"):
        claims_for_console(bad, "j")


def test_access_token_round_trip_with_at_jwt_typ() -> None:
    at_claims = claims_for_console(["idp:account:read"], "jti-3")
    token = sign_jwt(at_claims, KEYS, typ="at+jwt")
    assert verify(token, typ="at+jwt", now=NOW + 599) == at_claims
    with pytest.raises(InvalidToken, match="expired"):
        verify(token, typ="at+jwt", now=NOW + 600)
