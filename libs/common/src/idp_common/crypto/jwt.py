"""Signing and verifying JWTs: RS256, PS256, ES256 and EdDSA, each with its own keys.

- RFC 7519 (JWT) with RFC 7515 (JWS) compact serialisation, signed by joserfc.
- RS256 by default (contract §5 "Access tokens"); PS256, ES256 (RFC 7518 §3.4, §3.5)
  and EdDSA with Ed25519 (RFC 8037 §3.1) when a caller asks for them (per API, per
  client). Every other ``alg`` is refused, including ``none`` and the HMAC family.
- RFC 8725 §2.1, §3.1: the verifier fixes the algorithm, the token does not choose it.
  The key that ``kid`` names decides: a token whose header ``alg`` is not its key's
  algorithm is refused, whatever the signature.
- The header carries ``kid`` (contract §2 "Token claims"); verification uses only the key
  that ``kid`` names in the provider's :class:`~idp_common.crypto.keys.KeySet`. An embedded
  ``jwk``, ``jku``, ``x5u`` or ``x5c`` header is never trusted, and a ``crit`` or ``b64``
  header is refused.
- Spec part 5 "Validation rules": ``iss`` equals the issuer character for character; ``aud``
  equals (or, as an array, contains) the audience; ``exp`` is required.
- Access tokens follow RFC 9068 (``typ: at+jwt``): :func:`access_token_claims`.

:class:`InvalidToken` carries a short ``reason`` that is safe to show to the caller.
"""

from __future__ import annotations

import binascii
import json
import math
import time
from collections.abc import Iterable, Mapping
from typing import Any, Final

from joserfc import jws
from joserfc.errors import JoseError, UnsupportedAlgorithmError
from joserfc.jws import JWSRegistry

from idp_common.crypto.keys import JWS_ALGORITHM, SIGNING_ALGORITHMS, KeySet
from idp_common.protocol.constants import (
    ACCESS_TOKEN_TTL_SECONDS,
    JWT_TYP_ACCESS_TOKEN,
    JWT_TYP_ID_TOKEN,
    JWT_TYP_LOGOUT_TOKEN,
)
from idp_common.protocol.oidc_core_claims import present_claims
from idp_common.protocol.rfc4648_base64url import base64url_decode

__all__ = [
    "MAX_TOKEN_LENGTH",
    "TYP_ACCESS_TOKEN",
    "TYP_JWT",
    "TYP_LOGOUT_TOKEN",
    "InvalidToken",
    "access_token_claims",
    "check_claims",
    "numeric_date",
    "sign_jwt",
    "token_type",
    "typ_matches",
    "verify_jwt",
    "verify_signature",
]

#: RFC 9068 §2.1 access-token type; OIDC BCL 1.0 §2.4 logout-token type; RFC 7519 §5.1.
TYP_ACCESS_TOKEN: Final = JWT_TYP_ACCESS_TOKEN
TYP_LOGOUT_TOKEN: Final = JWT_TYP_LOGOUT_TOKEN
TYP_JWT: Final = JWT_TYP_ID_TOKEN
#: Longer strings are refused before any parsing.
MAX_TOKEN_LENGTH: Final = 16 * 1024
#: Default access-token lifetime: contract §8, ten minutes.
DEFAULT_ACCESS_TOKEN_TTL: Final = ACCESS_TOKEN_TTL_SECONDS

_REFUSED_HEADERS: Final = frozenset({"crit", "b64", "jwk", "jku", "x5u", "x5c"})
_MEDIA_TYPE_PREFIX: Final = "application/"


class _OneAlgorithm(JWSRegistry):
    """A joserfc registry that allows exactly one algorithm, the key's. joserfc 1.8 warns
    on every use of ``EdDSA`` (RFC 9864 deprecates it for the fully specified
    ``Ed25519``); the provider publishes ``EdDSA`` on purpose (docs/decisions.md: what
    relying-party libraries verify today), so the warning is not raised per token."""

    def get_alg(self, name: str) -> Any:
        if not self.allowed or name not in self.allowed or name not in self.algorithms:
            raise UnsupportedAlgorithmError(f"Algorithm of '{name}' is not allowed")
        return self.algorithms[name]


#: One registry per algorithm, made once (not per token).
_REGISTRIES: Final = {alg: _OneAlgorithm(algorithms=[alg]) for alg in SIGNING_ALGORITHMS}


class InvalidToken(Exception):
    """The token cannot be accepted. ``reason`` is short and safe to show to the caller."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def sign_jwt(
    claims: Mapping[str, Any],
    key_set: KeySet,
    *,
    typ: str = TYP_JWT,
    now: float | None = None,
    alg: str = JWS_ALGORITHM,
) -> str:
    """Sign ``claims`` with the key of ``alg`` current at ``now`` (the token's issue time,
    so that a new key signs only tokens issued from its activation time on; default: the
    wall clock). Header: ``{"alg", "kid", "typ"}``. ``KeySetError`` when the provider
    holds no key of ``alg``."""
    signing_key = key_set.signing_key_at(time.time() if now is None else now, alg)
    header = {"alg": signing_key.alg, "kid": signing_key.kid, "typ": typ}
    payload = json.dumps(dict(claims), separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    registry = _REGISTRIES[signing_key.alg]
    return jws.serialize_compact(
        header, payload.encode("utf-8"), signing_key.key, registry=registry
    )


def _b64url_json(segment: str) -> Any:
    """Strict base64url (RFC 7515 §2: no padding, no other alphabet) then JSON.

    JSON nested deeper than the decoder's recursion limit (``[[[[...``, a few kilobytes)
    raises ``RecursionError``: malformed too, not a server error."""
    try:
        return json.loads(base64url_decode(segment, strict=True))
    except (binascii.Error, UnicodeError, ValueError, RecursionError) as exc:
        raise InvalidToken("malformed") from exc


def _read_header(token: str) -> tuple[dict[str, Any], str]:
    """Parse and check the protected header without trusting it. Returns (header, kid)."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise InvalidToken("malformed")
    parts = token.split(".")
    if len(parts) != 3 or not parts[0] or not parts[1]:
        raise InvalidToken("malformed")
    header = _b64url_json(parts[0])
    if not isinstance(header, dict):
        raise InvalidToken("malformed")
    if header.get("alg") not in _REGISTRIES:
        raise InvalidToken("unsupported algorithm")
    if _REFUSED_HEADERS & header.keys():
        raise InvalidToken("unsupported header")
    if not parts[2]:
        raise InvalidToken("bad signature")
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise InvalidToken("unknown kid")
    return header, kid


def token_type(token: str) -> Any:
    """The ``typ`` of ``token``'s protected header, read with the same strict parsing as
    :func:`verify_signature` (call that first: the header is not trusted before)."""
    header, _ = _read_header(token)
    return header.get("typ")


def typ_matches(actual: Any, expected: str) -> bool:
    """RFC 9068 §4, RFC 8725 §3.11: ``typ`` case-insensitive, ``application/`` optional."""
    if not isinstance(actual, str):
        return False

    def canonical(value: str) -> str:
        value = value.lower()
        return value.removeprefix(_MEDIA_TYPE_PREFIX)

    return canonical(actual) == canonical(expected)


def numeric_date(claims: Mapping[str, Any], name: str, *, required: bool) -> float | None:
    """RFC 7519 §2 NumericDate ``name`` of ``claims`` (None when absent and not
    ``required``); :class:`InvalidToken` when missing or not a finite number."""
    value = claims.get(name)
    if value is None:
        if required:
            raise InvalidToken(f"missing {name}")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidToken(f"invalid {name}")
    return float(value)


def _check_claims(
    claims: Mapping[str, Any], *, issuer: str, audience: str, now: int, leeway: int
) -> None:
    if claims.get("iss") != issuer:
        raise InvalidToken("wrong issuer")
    aud = claims.get("aud")
    if isinstance(aud, str):
        audience_ok = aud == audience
    elif isinstance(aud, list):
        audience_ok = audience in aud and all(isinstance(item, str) for item in aud)
    else:
        audience_ok = False
    if not audience_ok:
        raise InvalidToken("wrong audience")
    exp = numeric_date(claims, "exp", required=True)
    if exp is not None and exp <= now - leeway:
        raise InvalidToken("expired")
    nbf = numeric_date(claims, "nbf", required=False)
    if nbf is not None and nbf > now + leeway:
        raise InvalidToken("not yet valid")
    iat = numeric_date(claims, "iat", required=False)
    if iat is not None and iat > now + leeway:
        raise InvalidToken("issued in the future")


def verify_jwt(
    token: str,
    key_set: KeySet,
    *,
    issuer: str,
    audience: str,
    now: int,
    typ: str | None = None,
    leeway: int = 0,
) -> dict[str, Any]:
    """Verify a JWT signed by one of the provider's keys and return its claims.

    Checks, in order: shape, ``alg`` one of the four, ``kid`` known, ``alg`` equal to the
    algorithm of the key ``kid`` names, signature, ``typ`` (when
    given; RFC 9068 §4), ``iss`` equal, ``aud`` equal or contained, ``exp`` required and
    after ``now - leeway``, ``nbf`` and ``iat`` not after ``now + leeway``.
    Raises :class:`InvalidToken` with a short reason.
    """
    claims = verify_signature(token, key_set, typ=typ)
    check_claims(claims, issuer=issuer, audience=audience, now=now, leeway=leeway)
    return claims


def verify_signature(token: str, key_set: KeySet, *, typ: str | None = None) -> dict[str, Any]:
    """The first half of :func:`verify_jwt`: shape, ``alg``, ``kid``, signature and
    ``typ``; returns the claims without looking at them. The answer depends only on the
    token and the key set, so a caller may keep it for a token it sees again, and must
    still call :func:`check_claims` every time."""
    header, kid = _read_header(token)
    signing_key = key_set.find(kid)
    if signing_key is None:
        raise InvalidToken("unknown kid")
    if header["alg"] != signing_key.alg:  # RFC 8725 §3.1: the key fixes the algorithm
        raise InvalidToken("algorithm does not match the key")
    try:
        verified = jws.deserialize_compact(
            token, signing_key.public_key, registry=_REGISTRIES[signing_key.alg]
        )
    except JoseError as exc:
        if exc.error == "bad_signature":
            raise InvalidToken("bad signature") from exc
        raise InvalidToken("malformed") from exc
    except (ValueError, TypeError) as exc:
        raise InvalidToken("malformed") from exc
    if typ is not None and not typ_matches(header.get("typ"), typ):
        raise InvalidToken("wrong token type")
    try:
        claims = json.loads(verified.payload)
    except (ValueError, UnicodeError, RecursionError) as exc:
        raise InvalidToken("malformed") from exc
    if not isinstance(claims, dict):
        raise InvalidToken("malformed")
    return claims


def check_claims(
    claims: Mapping[str, Any], *, issuer: str, audience: str, now: int, leeway: int = 0
) -> None:
    """The second half of :func:`verify_jwt`: ``iss``, ``aud``, ``exp``, ``nbf``, ``iat``."""
    _check_claims(claims, issuer=issuer, audience=audience, now=now, leeway=leeway)


def access_token_claims(
    *,
    issuer: str,
    subject: str,
    audience: str,
    client_id: str,
    scope: Iterable[str],
    now: int,
    jti: str,
    ttl: int = DEFAULT_ACCESS_TOKEN_TTL,
    auth_time: int | None = None,
    acr: str | None = None,
    amr: Iterable[str] | None = None,
    sid: str | None = None,
) -> dict[str, Any]:
    """RFC 9068 §2.2 claims of an access token; sign them with ``typ="at+jwt"``.

    ``scope`` is space-joined in the given order, duplicates dropped (RFC 6749 §3.3).
    ``auth_time``, ``acr``, ``amr`` and ``sid`` appear only when given.
    """
    if ttl <= 0:
        raise ValueError("ttl must be positive")
    scopes = list(dict.fromkeys(scope))
    for value in scopes:
        if not value or " " in value:
            raise ValueError(f"invalid scope value {value!r}")
    claims: dict[str, Any] = {
        "iss": issuer,
        "sub": subject,
        "aud": audience,
        "exp": now + ttl,
        "iat": now,
        "jti": jti,
        "client_id": client_id,
        "scope": " ".join(scopes),
    }
    methods = list(amr) if amr is not None else None
    claims.update(present_claims(auth_time=auth_time, acr=acr, amr=methods, sid=sid))
    return claims
