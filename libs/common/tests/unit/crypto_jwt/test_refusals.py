"""idp_common.crypto.jwt refuses bad signatures, unknown kids, other algorithms, dangerous
headers and malformed tokens."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization

from idp_common.crypto.jwt import (
    MAX_TOKEN_LENGTH,
    InvalidToken,
    sign_jwt,
)
from libs.common.tests.unit.crypto_jwt.support import (
    FOREIGN,
    GOOD,
    GOOD_HEADER,
    GOOD_PAYLOAD,
    GOOD_SIGNATURE,
    KEY_NEW,
    KEY_OTHER,
    KEYS,
    NEW,
    b64,
    b64json,
    claims,
    rsa_sign,
    verify,
)


def test_tampered_payload_is_a_bad_signature() -> None:
    header, _, signature = sign_jwt(claims(), KEYS).split(".")
    forged = f"{header}.{b64json(claims(sub='admin'))}.{signature}"
    with pytest.raises(InvalidToken) as info:
        verify(forged)
    assert info.value.reason == "bad signature"


def test_signature_of_another_key_under_a_known_kid_is_a_bad_signature() -> None:
    token = rsa_sign(KEY_OTHER, {"alg": "RS256", "kid": NEW.kid}, claims(), "RS256")
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
        verify(rsa_sign(KEY_NEW, header, claims(), "RS256"))


def test_alg_none_refused() -> None:
    token = f"{b64json({'alg': 'none', 'kid': NEW.kid, 'typ': 'JWT'})}.{b64json(claims())}."
    with pytest.raises(InvalidToken) as info:
        verify(token)
    assert info.value.reason == "unsupported algorithm"


def test_hs256_with_the_public_key_as_secret_refused() -> None:
    """The classic key-confusion attack: HMAC keyed with the published public key."""
    public_pem = KEY_NEW.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    signing_input = f"{b64json({'alg': 'HS256', 'kid': NEW.kid})}.{b64json(claims())}"
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    with pytest.raises(InvalidToken, match="unsupported algorithm"):
        verify(f"{signing_input}.{b64(mac)}")


def test_rs512_refused_even_when_correctly_signed() -> None:
    token = rsa_sign(KEY_NEW, {"alg": "RS512", "kid": NEW.kid}, claims(), "RS512")
    with pytest.raises(InvalidToken, match="unsupported algorithm"):
        verify(token)


@pytest.mark.parametrize("extra", ["crit", "jwk", "jku", "x5u", "x5c", "b64"])
def test_dangerous_headers_refused(extra: str) -> None:
    header = {"alg": "RS256", "kid": NEW.kid, extra: ["x"]}
    with pytest.raises(InvalidToken, match="unsupported header"):
        verify(rsa_sign(KEY_NEW, header, claims(), "RS256"))


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("", id="empty"),
        pytest.param("abc", id="one-part"),
        pytest.param("a.b", id="two-parts"),
        pytest.param(GOOD + ".x", id="four-parts"),
        pytest.param(f".{GOOD_PAYLOAD}.{GOOD_SIGNATURE}", id="empty-header"),
        pytest.param(f"{GOOD_HEADER}..{GOOD_SIGNATURE}", id="empty-payload"),
        pytest.param(f"!!!.{GOOD_PAYLOAD}.{GOOD_SIGNATURE}", id="header-not-base64"),
        pytest.param(f"{GOOD_HEADER}=.{GOOD_PAYLOAD}.{GOOD_SIGNATURE}", id="header-padded"),
        pytest.param(f"{b64(b'not json')}.{GOOD_PAYLOAD}.{GOOD_SIGNATURE}", id="header-not-json"),
        pytest.param(f"{b64json([1])}.{GOOD_PAYLOAD}.{GOOD_SIGNATURE}", id="header-array"),
        pytest.param("x" * (MAX_TOKEN_LENGTH + 1), id="too-long"),
        pytest.param(f"{GOOD_HEADER}.{GOOD_PAYLOAD}.%%%", id="signature-not-base64"),
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
    token = rsa_sign(KEY_NEW, {"alg": "RS256", "kid": NEW.kid}, payload, "RS256")
    with pytest.raises(InvalidToken, match="malformed"):
        verify(token)


def test_non_string_token_is_malformed() -> None:
    with pytest.raises(InvalidToken, match="malformed"):
        verify(None)  # type: ignore[arg-type]
