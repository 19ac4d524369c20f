"""``verify_id_token_hint`` (OIDC Core §3.1.2.1, RP-Initiated Logout 1.0 §2;
docs/security.md, attack 16): only an ID token of this provider, for the client, expired
by at most a day."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from joserfc import jws

from idp_common.crypto.jwt import sign_jwt
from idp_common.crypto.keys import KeySet, SigningKey
from idp_common.protocol.oidc_id_token_hint import (
    EXPIRED_GRACE_SECONDS,
    IdTokenHint,
    InvalidIdTokenHint,
    verify_id_token_hint,
)

KEYS = KeySet((SigningKey.from_private_key("a.pem", rsa.generate_private_key(65537, 2048)),))
OTHER_KEYS = KeySet((SigningKey.from_private_key("b.pem", rsa.generate_private_key(65537, 2048)),))
ISSUER = "https://id.example.com"
NOW = 1_800_000_000
CLAIMS: dict[str, Any] = {
    "iss": ISSUER,
    "sub": "person-1",
    "aud": "app",
    "iat": NOW - 60,
    "exp": NOW + 600,
    "sid": "the-sid",
}


def token(claims: dict[str, Any] | None = None, *, typ: str = "JWT", keys: KeySet = KEYS) -> str:
    return sign_jwt({**CLAIMS, **(claims or {})}, keys, typ=typ)


def untyped(claims: dict[str, Any]) -> str:
    """Signed with a header that has no ``typ`` at all."""
    key = KEYS.signing_key
    payload = json.dumps(claims).encode()
    return jws.serialize_compact({"alg": "RS256", "kid": key.kid}, payload, key.key, ["RS256"])


def check(value: str, client_id: str | None = "app", now: int = NOW) -> IdTokenHint:
    return verify_id_token_hint(value, KEYS, issuer=ISSUER, now=now, client_id=client_id)


def test_an_id_token_is_accepted() -> None:
    assert check(token()) == IdTokenHint(
        subject="person-1", client_id="app", sid="the-sid", expired=False
    )


@pytest.mark.parametrize("typ", ["JWT", "jwt", "application/jwt"])
def test_the_id_token_types(typ: str) -> None:
    assert check(token(typ=typ)).subject == "person-1"


def test_a_token_without_typ_is_accepted() -> None:
    assert check(untyped(CLAIMS)).client_id == "app"


@pytest.mark.parametrize(
    ("claims", "typ", "reason"),
    [
        pytest.param({}, "at+jwt", "not an ID token", id="access-token"),
        pytest.param({}, "application/at+jwt", "not an ID token", id="access-token-media"),
        pytest.param({}, "logout+jwt", "not an ID token", id="logout-token"),
        pytest.param({"events": {"x": {}}}, "JWT", "not an ID token", id="events"),
        pytest.param({}, "JOSE", "not an ID token", id="other-type"),
        pytest.param({"iss": ISSUER + "/"}, "JWT", "wrong issuer", id="issuer"),
        pytest.param({"sub": ""}, "JWT", "no subject", id="empty-subject"),
        pytest.param({"sub": 7}, "JWT", "no subject", id="numeric-subject"),
        pytest.param({"aud": "other-app"}, "JWT", "wrong audience", id="audience"),
        pytest.param({"aud": []}, "JWT", "wrong audience", id="no-audience"),
        pytest.param({"exp": None}, "JWT", "missing exp", id="no-exp"),
        pytest.param({"exp": "soon"}, "JWT", "invalid exp", id="text-exp"),
        pytest.param({"exp": True}, "JWT", "invalid exp", id="boolean-exp"),
        pytest.param(
            {"exp": NOW - EXPIRED_GRACE_SECONDS}, "JWT", "expired too long ago", id="a-day-ago"
        ),
        pytest.param(
            {"exp": NOW - 2 * 365 * 24 * 3600}, "JWT", "expired too long ago", id="two-years"
        ),
        pytest.param({"iat": NOW + 61}, "JWT", "iat is in the future", id="iat-future"),
        pytest.param({"nbf": NOW + 3600}, "JWT", "nbf is in the future", id="nbf-future"),
    ],
)
def test_refused(claims: dict[str, Any], typ: str, reason: str) -> None:
    values = {k: v for k, v in {**CLAIMS, **claims}.items() if v is not None}
    with pytest.raises(InvalidIdTokenHint) as refused:
        check(sign_jwt(values, KEYS, typ=typ))
    assert refused.value.reason == reason


def test_another_keys_signature_is_refused() -> None:
    with pytest.raises(InvalidIdTokenHint, match="unknown kid"):
        check(token(keys=OTHER_KEYS))


def test_a_tampered_token_is_refused() -> None:
    header, payload, signature = token().split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    forged = base64.urlsafe_b64encode(json.dumps({**claims, "sub": "x"}).encode()).rstrip(b"=")
    with pytest.raises(InvalidIdTokenHint, match="bad signature"):
        check(f"{header}.{forged.decode()}.{signature}")


def test_an_expired_token_is_accepted_within_the_grace() -> None:
    hint = check(token({"exp": NOW - EXPIRED_GRACE_SECONDS + 1, "iat": NOW - 90_000}))
    assert hint.expired is True


def test_without_a_client_id_the_token_names_its_client() -> None:
    assert check(token(), client_id=None).client_id == "app"
    assert check(token({"aud": ["app"]}), client_id=None).client_id == "app"
    several = {"aud": ["app", "api"], "azp": "app"}
    assert check(token(several), client_id=None).client_id == "app"
    assert check(token(several), client_id="app").client_id == "app"
    with pytest.raises(InvalidIdTokenHint, match="no single client"):
        check(token({"aud": ["app", "api"]}), client_id=None)
