"""Keys, claims and raw token pieces shared by the JWT tests."""

from __future__ import annotations

import base64
import json
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from idp_common.crypto.jwt import (
    sign_jwt,
    verify_jwt,
)
from idp_common.crypto.keys import KeySet, SigningKey

KEY_OLD = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KEY_NEW = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KEY_OTHER = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OLD = SigningKey.from_private_key("2025.pem", KEY_OLD)
NEW = SigningKey.from_private_key("2026.pem", KEY_NEW)
OTHER = SigningKey.from_private_key("other.pem", KEY_OTHER)
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


GOOD = sign_jwt(claims(), KEYS)
GOOD_HEADER, GOOD_PAYLOAD, GOOD_SIGNATURE = GOOD.split(".")
