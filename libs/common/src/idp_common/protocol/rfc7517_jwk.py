"""RSA public keys as JSON Web Keys (RFC 7517; RFC 7518 §6.3.1) and their thumbprints
(RFC 7638), as the JWKS publishes them and ``kid`` derives from them.

- :func:`rsa_public_jwk`: ``kty``, ``use``, ``alg``, ``kid``, ``n``, ``e`` in that order;
  ``n`` and ``e`` are base64url big-endian unsigned integers without padding (RFC 7518
  §2). Never a private member (``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi``, ``oth``).
- :func:`rfc7638_thumbprint`: SHA-256 over the required members ``{"e","kty","n"}`` only
  (§3.2), in lexicographic order, without whitespace (§3.3), base64url.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from idp_common.protocol.rfc4648_base64url import base64url_encode

__all__ = ["rfc7638_thumbprint", "rsa_public_jwk"]


def _base64url_uint(value: int) -> str:
    """Base64url encoding of an unsigned integer, big-endian, no padding (RFC 7518 §2)."""
    return base64url_encode(value.to_bytes((value.bit_length() + 7) // 8 or 1, "big"))


def rsa_public_jwk(n: int, e: int, *, kid: str, alg: str) -> dict[str, str]:
    """The public JWK of the RSA key with modulus ``n`` and exponent ``e``, for signing."""
    return {
        "kty": "RSA",
        "use": "sig",
        "alg": alg,
        "kid": kid,
        "n": _base64url_uint(n),
        "e": _base64url_uint(e),
    }


def rfc7638_thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638 §3 thumbprint of an RSA JWK (see the module); ``ValueError`` for others."""
    if jwk.get("kty") != "RSA":
        raise ValueError("only RSA JWKs are supported")
    members = {"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}
    canonical = json.dumps(members, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return base64url_encode(hashlib.sha256(canonical.encode("utf-8")).digest())
