"""idp_common.crypto.jwt: RS256 signing and verification, claims and ``typ`` checks."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding

from idp_common.crypto.jwt import (
    InvalidToken,
    sign_jwt,
)
from libs.common.tests.unit.crypto_jwt.support import (
    AUDIENCE,
    ISSUER,
    KEY_NEW,
    KEYS,
    NEW,
    NOW,
    OLD,
    ONLY_OLD,
    claims,
    decode_part,
    rsa_sign,
    verify,
)


def test_round_trip() -> None:
    token = sign_jwt(claims(), KEYS)
    assert decode_part(token, 0) == {"alg": "RS256", "kid": NEW.kid, "typ": "JWT"}
    assert verify(token) == claims()


def test_signed_with_the_newest_key_verifiable_with_an_independent_library() -> None:
    token = sign_jwt(claims(), KEYS)
    header_b64, payload_b64, signature_b64 = token.split(".")
    signature = base64.urlsafe_b64decode(signature_b64 + "=" * (-len(signature_b64) % 4))
    KEY_NEW.public_key().verify(
        signature, f"{header_b64}.{payload_b64}".encode(), padding.PKCS1v15(), hashes.SHA256()
    )


def test_typ_header_is_set() -> None:
    token = sign_jwt(claims(), KEYS, typ="at+jwt")
    assert decode_part(token, 0)["typ"] == "at+jwt"


def test_token_of_an_older_key_still_verifies_after_rotation() -> None:
    token = sign_jwt(claims(), ONLY_OLD)
    assert decode_part(token, 0)["kid"] == OLD.kid
    assert verify(token)["sub"] == "user-1"


@pytest.mark.parametrize(
    ("token_claims", "options", "reason"),
    [
        pytest.param(claims(exp=NOW), {}, "expired", id="exp-equals-now"),
        pytest.param(claims(exp=NOW - 1), {}, "expired", id="exp-past"),
        pytest.param(claims(exp=None), {}, "missing exp", id="exp-missing"),
        pytest.param(claims(exp="soon"), {}, "invalid exp", id="exp-string"),
        pytest.param(claims(exp=True), {}, "invalid exp", id="exp-bool"),
        pytest.param(claims(iss="https://evil.example"), {}, "wrong issuer", id="iss-other"),
        pytest.param(claims(iss=ISSUER + "/"), {}, "wrong issuer", id="iss-trailing-slash"),
        pytest.param(claims(iss=None), {}, "wrong issuer", id="iss-missing"),
        pytest.param(claims(aud="https://other/api"), {}, "wrong audience", id="aud-other"),
        pytest.param(claims(aud=["a", "b"]), {}, "wrong audience", id="aud-list-without"),
        pytest.param(claims(aud=None), {}, "wrong audience", id="aud-missing"),
        pytest.param(claims(aud=42), {}, "wrong audience", id="aud-number"),
        pytest.param(claims(nbf=NOW + 5), {}, "not yet valid", id="nbf-future"),
        pytest.param(claims(iat=NOW + 5), {}, "issued in the future", id="iat-future"),
        pytest.param(claims(nbf="x"), {}, "invalid nbf", id="nbf-string"),
    ],
)
def test_claim_refusals(token_claims: dict[str, Any], options: dict[str, Any], reason: str) -> None:
    token = sign_jwt(token_claims, KEYS)
    with pytest.raises(InvalidToken) as info:
        verify(token, **options)
    assert info.value.reason == reason
    assert str(info.value) == reason


@pytest.mark.parametrize(
    ("token_claims", "options"),
    [
        pytest.param(claims(aud=["x", AUDIENCE]), {}, id="aud-list-contains"),
        pytest.param(claims(exp=NOW + 1), {}, id="exp-one-second-left"),
        pytest.param(claims(exp=NOW - 5), {"leeway": 10}, id="exp-within-leeway"),
        pytest.param(claims(nbf=NOW + 5, iat=NOW + 5), {"leeway": 10}, id="future-within-leeway"),
        pytest.param(claims(nbf=NOW), {}, id="nbf-now"),
        pytest.param(claims(exp=NOW + 0.5), {}, id="exp-fractional"),
    ],
)
def test_claim_acceptances(token_claims: dict[str, Any], options: dict[str, Any]) -> None:
    assert verify(sign_jwt(token_claims, KEYS), **options) == token_claims


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_non_finite_exp_refused(value: float) -> None:
    # sign_jwt refuses to write such JSON; build the token by hand
    token = rsa_sign(KEY_NEW, {"alg": "RS256", "kid": NEW.kid}, claims(exp=value), "RS256")
    with pytest.raises(InvalidToken, match="invalid exp"):
        verify(token)
    with pytest.raises(ValueError, match="JSON"):
        sign_jwt(claims(exp=value), KEYS)


@pytest.mark.parametrize(
    ("header_typ", "expected", "ok"),
    [
        ("at+jwt", "at+jwt", True),
        ("application/at+jwt", "at+jwt", True),
        ("AT+JWT", "at+jwt", True),
        ("at+jwt", "application/at+jwt", True),
        ("JWT", "at+jwt", False),
        ("logout+jwt", "at+jwt", False),
        ("at+jwt", "logout+jwt", False),
    ],
)
def test_typ_check(header_typ: str, expected: str, ok: bool) -> None:
    token = sign_jwt(claims(), KEYS, typ=header_typ)
    if ok:
        assert verify(token, typ=expected)["sub"] == "user-1"
    else:
        with pytest.raises(InvalidToken) as info:
            verify(token, typ=expected)
        assert info.value.reason == "wrong token type"


def test_typ_not_checked_when_not_asked() -> None:
    assert verify(sign_jwt(claims(), KEYS, typ="logout+jwt"))["sub"] == "user-1"


def test_missing_typ_refused_when_asked() -> None:
    token = rsa_sign(KEY_NEW, {"alg": "RS256", "kid": NEW.kid}, claims(), "RS256")
    assert verify(token)["sub"] == "user-1"
    with pytest.raises(InvalidToken, match="wrong token type"):
        verify(token, typ="at+jwt")
