"""Keys and PEM files shared by the signing key tests."""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from idp_common.crypto.keys import (
    KeySet,
    SigningKey,
)

# Generated once per module: RSA key generation is the slow part of these tests.
KEY_A = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KEY_B = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PRIVATE_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "oth"}


def pkcs8(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def pkcs1(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )


def b64url_uint(value: int) -> str:
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def independent_thumbprint(key: rsa.RSAPrivateKey) -> str:
    """RFC 7638 §3, written out again without the module under test."""
    numbers = key.public_key().public_numbers()
    text = f'{{"e":"{b64url_uint(numbers.e)}","kty":"RSA","n":"{b64url_uint(numbers.n)}"}}'
    digest = hashlib.sha256(text.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


RFC7638_EXAMPLE = {
    "kty": "RSA",
    "n": (
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECP"
        "ebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY"
        "368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0f"
        "M4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
    ),
    "e": "AQAB",
    "alg": "RS256",
    "kid": "2011-04-29",
}


def make_key_set() -> KeySet:
    return KeySet(
        (SigningKey.from_private_key("a.pem", KEY_A), SigningKey.from_private_key("b.pem", KEY_B))
    )


def ec_pem() -> bytes:
    return ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def small_rsa_pem() -> bytes:
    return pkcs8(rsa.generate_private_key(public_exponent=65537, key_size=1024))  # noqa: S505 - must be refused


def encrypted_pem() -> bytes:
    return KEY_A.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret"),
    )


def public_only_pem() -> bytes:
    return KEY_A.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


NOW = datetime(2026, 11, 21, 6, 35, 0, tzinfo=UTC)
