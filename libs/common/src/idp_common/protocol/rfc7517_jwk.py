"""Public keys as JSON Web Keys (RFC 7517; RFC 7518 §6.2, §6.3.1; RFC 8037 §2) and their
thumbprints (RFC 7638), as the JWKS publishes them and ``kid`` derives from them.

- :func:`rsa_public_jwk`: ``kty``, ``use``, ``alg``, ``kid``, ``n``, ``e`` in that order;
  ``n`` and ``e`` are base64url big-endian unsigned integers without padding (RFC 7518
  §2). Never a private member (``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi``, ``oth``).
- :func:`ec_public_jwk`: ``kty: EC``, ``crv``, ``x``, ``y`` (RFC 7518 §6.2.1: coordinates
  the full size of the curve's field, 32 octets for P-256); never ``d``.
- :func:`okp_public_jwk`: ``kty: OKP``, ``crv``, ``x`` (RFC 8037 §2: the raw public key);
  never ``d``.
- :func:`rfc7638_thumbprint`: SHA-256 over the required members only (§3.2: ``e kty n``
  for RSA, ``crv kty x y`` for EC, RFC 8037 §2: ``crv kty x`` for OKP), in lexicographic
  order, without whitespace (§3.3), base64url.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

from idp_common.protocol.rfc4648_base64url import base64url_encode

__all__ = ["ec_public_jwk", "okp_public_jwk", "rfc7638_thumbprint", "rsa_public_jwk"]

#: RFC 7638 §3.2 (and RFC 8037 §2 for OKP): the members a thumbprint covers, per ``kty``.
_REQUIRED_MEMBERS: Final = {
    "RSA": ("e", "kty", "n"),
    "EC": ("crv", "kty", "x", "y"),
    "OKP": ("crv", "kty", "x"),
}


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


def ec_public_jwk(crv: str, x: int, y: int, size: int, *, kid: str, alg: str) -> dict[str, str]:
    """The public JWK of the EC point (``x``, ``y``) on ``crv``; ``size`` is the octet length
    of a coordinate (RFC 7518 §6.2.1.2: zero-padded to it)."""
    return {
        "kty": "EC",
        "use": "sig",
        "alg": alg,
        "kid": kid,
        "crv": crv,
        "x": base64url_encode(x.to_bytes(size, "big")),
        "y": base64url_encode(y.to_bytes(size, "big")),
    }


def okp_public_jwk(crv: str, public: bytes, *, kid: str, alg: str) -> dict[str, str]:
    """The public JWK of the octet key pair whose raw public key is ``public`` (RFC 8037)."""
    return {
        "kty": "OKP",
        "use": "sig",
        "alg": alg,
        "kid": kid,
        "crv": crv,
        "x": base64url_encode(public),
    }


def rfc7638_thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638 §3 thumbprint of an RSA, EC or OKP JWK (see the module); ``ValueError``
    for another ``kty``."""
    names = _REQUIRED_MEMBERS.get(jwk.get("kty", ""))
    if names is None:
        raise ValueError("only RSA, EC and OKP JWKs are supported")
    members = {name: jwk[name] for name in names}
    canonical = json.dumps(members, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return base64url_encode(hashlib.sha256(canonical.encode("utf-8")).digest())
