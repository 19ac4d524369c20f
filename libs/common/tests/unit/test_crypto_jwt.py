"""Unit tests of idp_common.crypto.jwt: RS256 only, spec part 5 validation rules, RFC 9068."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from idp_common.crypto.jwt import (
    MAX_TOKEN_LENGTH,
    InvalidToken,
    access_token_claims,
    sign_jwt,
    verify_jwt,
)
from idp_common.crypto.keys import KeySet, SigningKey

_KEY_OLD = rsa.generate_private_key(public_exponent=65537, key_size=2048)
_KEY_NEW = rsa.generate_private_key(public_exponent=65537, key_size=2048)
_KEY_OTHER = rsa.generate_private_key(public_exponent=65537, key_size=2048)

OLD = SigningKey.from_private_key("2025.pem", _KEY_OLD)
NEW = SigningKey.from_private_key("2026.pem", _KEY_NEW)
OTHER = SigningKey.from_private_key("other.pem", _KEY_OTHER)
KEYS = KeySet((OLD, NEW))
ONLY_OLD = KeySet((OLD,))
FOREIGN = KeySet((OTHER,))

ISSUER = "https://id.example.com"
AUDIENCE = "https://id.example.com/api"
NOW = 1_800_000_000


def claims(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "iss": ISSUER,
        "sub": "user-1",
        "aud": AUDIENCE,
        "iat": NOW,
        "exp": NOW + 600,
        "jti": "j-1",
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def verify(token: str, **kwargs: Any) -> dict[str, Any]:
    options: dict[str, Any] = {"issuer": ISSUER, "audience": AUDIENCE, "now": NOW}
    options.update(kwargs)
    return verify_jwt(token, KEYS, **options)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64json(value: Any) -> str:
    return b64(json.dumps(value).encode())


def decode_part(token: str, index: int) -> Any:
    part = token.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def rsa_sign(key: rsa.RSAPrivateKey, header: dict[str, Any], payload: Any, alg: str) -> str:
    """Build a JWS by hand (to produce tokens the module under test would never sign)."""
    signing_input = f"{b64json(header)}.{b64json(payload)}"
    digest = {"RS256": hashes.SHA256(), "RS512": hashes.SHA512()}[alg]
    signature = key.sign(signing_input.encode(), padding.PKCS1v15(), digest)
    return f"{signing_input}.{b64(signature)}"


# --- signing -------------------------------------------------------------------------------


def test_round_trip() -> None:
    token = sign_jwt(claims(), KEYS)
    assert decode_part(token, 0) == {"alg": "RS256", "kid": NEW.kid, "typ": "JWT"}
    assert verify(token) == claims()


def test_signed_with_the_newest_key_verifiable_with_an_independent_library() -> None:
    token = sign_jwt(claims(), KEYS)
    header_b64, payload_b64, signature_b64 = token.split(".")
    signature = base64.urlsafe_b64decode(signature_b64 + "=" * (-len(signature_b64) % 4))
    _KEY_NEW.public_key().verify(
        signature, f"{header_b64}.{payload_b64}".encode(), padding.PKCS1v15(), hashes.SHA256()
    )


def test_typ_header_is_set() -> None:
    token = sign_jwt(claims(), KEYS, typ="at+jwt")
    assert decode_part(token, 0)["typ"] == "at+jwt"


def test_token_of_an_older_key_still_verifies_after_rotation() -> None:
    token = sign_jwt(claims(), ONLY_OLD)
    assert decode_part(token, 0)["kid"] == OLD.kid
    assert verify(token)["sub"] == "user-1"


# --- claim checks (table) ------------------------------------------------------------------


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
    token = rsa_sign(_KEY_NEW, {"alg": "RS256", "kid": NEW.kid}, claims(exp=value), "RS256")
    with pytest.raises(InvalidToken, match="invalid exp"):
        verify(token)
    with pytest.raises(ValueError, match="JSON"):
        sign_jwt(claims(exp=value), KEYS)


# --- typ -----------------------------------------------------------------------------------


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
    token = rsa_sign(_KEY_NEW, {"alg": "RS256", "kid": NEW.kid}, claims(), "RS256")
    assert verify(token)["sub"] == "user-1"
    with pytest.raises(InvalidToken, match="wrong token type"):
        verify(token, typ="at+jwt")


# --- signature, key and algorithm ----------------------------------------------------------


def test_tampered_payload_is_a_bad_signature() -> None:
    header, _, signature = sign_jwt(claims(), KEYS).split(".")
    forged = f"{header}.{b64json(claims(sub='admin'))}.{signature}"
    with pytest.raises(InvalidToken) as info:
        verify(forged)
    assert info.value.reason == "bad signature"


def test_signature_of_another_key_under_a_known_kid_is_a_bad_signature() -> None:
    token = rsa_sign(_KEY_OTHER, {"alg": "RS256", "kid": NEW.kid}, claims(), "RS256")
    with pytest.raises(InvalidToken, match="bad signature"):
        verify(token)


def test_empty_signature_is_a_bad_signature() -> None:
    header, payload, _ = sign_jwt(claims(), KEYS).split(".")
    with pytest.raises(InvalidToken, match="bad signature"):
        verify(f"{header}.{payload}.")


def test_unknown_kid() -> None:
    with pytest.raises(InvalidToken) as info:
        verify(sign_jwt(claims(), FOREIGN))
    assert info.value.reason == "unknown kid"


@pytest.mark.parametrize("kid", [None, "", 7])
def test_missing_or_odd_kid_is_unknown(kid: Any) -> None:
    header: dict[str, Any] = {"alg": "RS256", "typ": "JWT"}
    if kid is not None:
        header["kid"] = kid
    with pytest.raises(InvalidToken, match="unknown kid"):
        verify(rsa_sign(_KEY_NEW, header, claims(), "RS256"))


def test_alg_none_refused() -> None:
    token = f"{b64json({'alg': 'none', 'kid': NEW.kid, 'typ': 'JWT'})}.{b64json(claims())}."
    with pytest.raises(InvalidToken) as info:
        verify(token)
    assert info.value.reason == "unsupported algorithm"


def test_hs256_with_the_public_key_as_secret_refused() -> None:
    """The classic key-confusion attack: HMAC keyed with the published public key."""
    public_pem = _KEY_NEW.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    signing_input = f"{b64json({'alg': 'HS256', 'kid': NEW.kid})}.{b64json(claims())}"
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    with pytest.raises(InvalidToken, match="unsupported algorithm"):
        verify(f"{signing_input}.{b64(mac)}")


def test_rs512_refused_even_when_correctly_signed() -> None:
    token = rsa_sign(_KEY_NEW, {"alg": "RS512", "kid": NEW.kid}, claims(), "RS512")
    with pytest.raises(InvalidToken, match="unsupported algorithm"):
        verify(token)


@pytest.mark.parametrize("extra", ["crit", "jwk", "jku", "x5u", "x5c", "b64"])
def test_dangerous_headers_refused(extra: str) -> None:
    header = {"alg": "RS256", "kid": NEW.kid, extra: ["x"]}
    with pytest.raises(InvalidToken, match="unsupported header"):
        verify(rsa_sign(_KEY_NEW, header, claims(), "RS256"))


# --- malformed input -----------------------------------------------------------------------

_GOOD = sign_jwt(claims(), KEYS)
_GOOD_HEADER, _GOOD_PAYLOAD, _GOOD_SIGNATURE = _GOOD.split(".")


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("", id="empty"),
        pytest.param("abc", id="one-part"),
        pytest.param("a.b", id="two-parts"),
        pytest.param(_GOOD + ".x", id="four-parts"),
        pytest.param(f".{_GOOD_PAYLOAD}.{_GOOD_SIGNATURE}", id="empty-header"),
        pytest.param(f"{_GOOD_HEADER}..{_GOOD_SIGNATURE}", id="empty-payload"),
        pytest.param(f"!!!.{_GOOD_PAYLOAD}.{_GOOD_SIGNATURE}", id="header-not-base64"),
        pytest.param(f"{_GOOD_HEADER}=.{_GOOD_PAYLOAD}.{_GOOD_SIGNATURE}", id="header-padded"),
        pytest.param(f"{b64(b'not json')}.{_GOOD_PAYLOAD}.{_GOOD_SIGNATURE}", id="header-not-json"),
        pytest.param(f"{b64json([1])}.{_GOOD_PAYLOAD}.{_GOOD_SIGNATURE}", id="header-array"),
        pytest.param("x" * (MAX_TOKEN_LENGTH + 1), id="too-long"),
        pytest.param(f"{_GOOD_HEADER}.{_GOOD_PAYLOAD}.%%%", id="signature-not-base64"),
    ],
)
def test_malformed_tokens(token: str) -> None:
    with pytest.raises(InvalidToken) as info:
        verify(token)
    assert info.value.reason in {"malformed", "bad signature"}


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param([1, 2], id="array"),
        pytest.param("text", id="string"),
    ],
)
def test_signed_payload_that_is_not_an_object_is_malformed(payload: Any) -> None:
    token = rsa_sign(_KEY_NEW, {"alg": "RS256", "kid": NEW.kid}, payload, "RS256")
    with pytest.raises(InvalidToken, match="malformed"):
        verify(token)


def test_non_string_token_is_malformed() -> None:
    with pytest.raises(InvalidToken, match="malformed"):
        verify(None)  # type: ignore[arg-type]


# --- RFC 9068 access-token claims ----------------------------------------------------------


def test_access_token_claims_minimal() -> None:
    result = access_token_claims(
        issuer=ISSUER,
        subject="user-1",
        audience=AUDIENCE,
        client_id="console",
        scope=["openid", "idp:users:read", "openid"],
        now=NOW,
        jti="jti-1",
    )
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
    result = access_token_claims(
        issuer=ISSUER,
        subject="user-1",
        audience=AUDIENCE,
        client_id="console",
        scope=(),
        now=NOW,
        ttl=60,
        jti="jti-2",
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
        access_token_claims(
            issuer=ISSUER,
            subject="s",
            audience=AUDIENCE,
            client_id="c",
            scope=bad,
            now=NOW,
            jti="j",
        )


def test_access_token_round_trip_with_at_jwt_typ() -> None:
    at_claims = access_token_claims(
        issuer=ISSUER,
        subject="user-1",
        audience=AUDIENCE,
        client_id="console",
        scope=["idp:account:read"],
        now=NOW,
        jti="jti-3",
    )
    token = sign_jwt(at_claims, KEYS, typ="at+jwt")
    assert verify(token, typ="at+jwt", now=NOW + 599) == at_claims
    with pytest.raises(InvalidToken, match="expired"):
        verify(token, typ="at+jwt", now=NOW + 600)
