"""Shared settings and keys of the property tests.

Deterministic (``derandomize``: the examples follow from the test's code, so CI and a
developer see the same ones) and writing nothing (``database=None``: no
``.hypothesis/`` folder in the checkout). The settings are applied per test, not as a
global profile, so that the schemathesis tests keep their own.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from hypothesis import HealthCheck, settings

from idp_common.crypto.keys import KeySet, SigningKey

#: Cheap pure functions: many examples.
FAST = settings(
    max_examples=100,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
#: Functions that sign or verify RSA signatures (about a millisecond each): fewer.
SLOW = settings(FAST, max_examples=30)

PRIVATE_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KEY = SigningKey.from_private_key("property.pem", PRIVATE_KEY)
KEYS = KeySet((KEY,))
ISSUER = "https://id.example.com"
AUDIENCE = "https://id.example.com/api"
CLIENT_ID = "app-1"
NOW = 1_800_000_000


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign_raw(header: dict[str, Any], payload: bytes) -> str:
    """A JWS over exactly ``payload`` (which need not be JSON), signed by :data:`KEY`."""
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(payload)}"
    signature = PRIVATE_KEY.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{b64(signature)}"


def header(**extra: Any) -> dict[str, Any]:
    return {"alg": "RS256", "kid": KEY.kid, **extra}
