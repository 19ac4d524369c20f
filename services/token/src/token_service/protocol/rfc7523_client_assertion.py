"""Client authentication by a JWT assertion: RFC 7523 §2.2 and §3, RFC 7521 §4.2, OpenID
Connect Core 1.0 §9 (``client_secret_jwt``, ``private_key_jwt``), with the audience rule of
RFC 7523bis (draft-ietf-oauth-rfc7523bis: the issuer identifier may be the audience).

The request carries ``client_assertion_type`` =
``urn:ietf:params:oauth:client-assertion-type:jwt-bearer`` and ``client_assertion``, a
compact JWS. Checked here, purely (the caller fetches keys, opens the secret and keeps the
``jti`` replay cache):

- one method per request (RFC 6749 §2.3): an assertion beside HTTP Basic or a
  ``client_secret`` is ``invalid_request``; so is a missing or other assertion type, or a
  ``client_id`` form field that is not the assertion's ``sub`` (RFC 7521 §4.2);
- ``alg``: ``RS256``, ``PS256``, ``ES256`` for ``private_key_jwt``, ``HS256`` (the key is
  the client secret's UTF-8 bytes) for ``client_secret_jwt``; ``none`` and every other
  value, or an algorithm of the other method, are refused (RFC 8725 §3.1). A ``crit`` or
  ``b64`` header is refused; an embedded key (``jwk``, ``jku``, ``x5u``, ``x5c``) is
  never used; ``typ`` absent, ``JWT`` or ``client-authentication+jwt`` (RFC 7523bis),
  nothing else (an access token or a DPoP proof is not an assertion: RFC 8725 §3.11);
- the key: the one ``kid`` names, or, without ``kid``, each key of the set whose type fits
  ``alg`` in turn; a key whose ``alg`` or ``use`` says otherwise is not used; RSA keys
  of at least 2048 bits, EC keys on P-256;
- claims (RFC 7523 §3): ``iss`` = ``sub`` = the client's id; ``aud`` (a string, or an
  array of strings) contains one of the accepted audiences (the issuer, the token
  endpoint's URL, the URL of the endpoint called); ``exp`` required and after
  ``now - leeway``; ``nbf`` and ``iat`` not after ``now + leeway``; ``jti`` required, a
  string of 1 to :data:`MAX_JTI_LENGTH` characters;
- how long one assertion is good: until ``exp``, and never more than
  :data:`MAX_LIFETIME_SECONDS` after ``iat`` (an older ``iat`` is refused), or, without
  ``iat``, ``exp`` at most that far ahead; ``exp`` at most :data:`MAX_EXP_AHEAD_SECONDS`
  ahead in any case (Authlib signs for an hour by default, oauth4webapi for a minute).
  The caller remembers ``jti`` until :attr:`VerifiedAssertion.usable_until` plus the
  leeway, so the replay cache holds each ``jti`` five minutes at most.

Every refusal of the assertion itself is ``invalid_client`` (RFC 7521 §4.2.1) with a short
description safe to show; the assertion is never put in an error or a log line.
"""

from __future__ import annotations

import binascii
import json
import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, Key, KeySet, OctKey, RSAKey
from joserfc.jws import JWSRegistry

from idp_common.protocol.constants import (
    ALG_ES256,
    ALG_PS256,
    ALG_RS256,
    CLIENT_ASSERTION_TYPE_JWT_BEARER,
    CLIENT_AUTH_PRIVATE_KEY_JWT,
    CLIENT_AUTH_SECRET_JWT,
)
from idp_common.protocol.rfc4648_base64url import base64url_decode
from idp_common.protocol.rfc6749_errors import InvalidClient, InvalidRequest

__all__ = [
    "ALG_HS256",
    "DEFAULT_LEEWAY_SECONDS",
    "MAX_ASSERTION_LENGTH",
    "MAX_EXP_AHEAD_SECONDS",
    "MAX_JTI_LENGTH",
    "MAX_LIFETIME_SECONDS",
    "PRIVATE_KEY_JWT_ALGS",
    "SECRET_JWT_ALGS",
    "UnverifiedAssertion",
    "VerifiedAssertion",
    "candidate_keys",
    "check_assertion_request",
    "has_kid",
    "method_of_alg",
    "read_assertion",
    "secret_key",
    "verify_assertion",
]

ALG_HS256: Final = "HS256"
#: OIDC Core §9 with the issue's list: what each method may sign with.
PRIVATE_KEY_JWT_ALGS: Final = (ALG_RS256, ALG_PS256, ALG_ES256)
SECRET_JWT_ALGS: Final = (ALG_HS256,)
#: Clock skew tolerated on ``exp``, ``nbf`` and ``iat``.
DEFAULT_LEEWAY_SECONDS: Final = 30
#: An assertion is used at most this long after its ``iat`` (or, without ``iat``, its
#: ``exp`` lies at most this far ahead): the replay cache keeps each ``jti`` that long.
MAX_LIFETIME_SECONDS: Final = 300
#: ``exp`` may lie at most this far ahead (Authlib's default lifetime is 3600 s).
MAX_EXP_AHEAD_SECONDS: Final = 3600
MAX_ASSERTION_LENGTH: Final = 8 * 1024
MAX_JTI_LENGTH: Final = 256
#: RFC 7523bis §5 ``typ``; ``JWT`` (RFC 7519 §5.1) and no ``typ`` stay accepted.
TYP_CLIENT_AUTHENTICATION: Final = "client-authentication+jwt"
_ACCEPTED_TYPS: Final = frozenset({"jwt", TYP_CLIENT_AUTHENTICATION, "application/jwt"})
_REFUSED_HEADERS: Final = frozenset({"crit", "b64"})
_KEY_TYPES: Final = {ALG_RS256: "RSA", ALG_PS256: "RSA", ALG_ES256: "EC", ALG_HS256: "oct"}
_MIN_RSA_BITS: Final = 2048
_REGISTRIES: Final = {alg: JWSRegistry(algorithms=[alg]) for alg in _KEY_TYPES}


@dataclass(frozen=True)
class UnverifiedAssertion:
    """What the assertion says before any check: who it names and how it is signed."""

    client_id: str
    alg: str
    kid: str | None
    header: Mapping[str, Any]
    claims: Mapping[str, Any]


@dataclass(frozen=True)
class VerifiedAssertion:
    """A checked assertion: the replay cache keeps ``jti`` until ``usable_until`` (plus
    the leeway): ``exp``, or ``iat`` + :data:`MAX_LIFETIME_SECONDS` when sooner."""

    client_id: str
    jti: str
    usable_until: int
    kid: str | None


def method_of_alg(alg: str) -> str:
    """The authentication method an assertion's ``alg`` belongs to (for audit rows)."""
    return CLIENT_AUTH_SECRET_JWT if alg == ALG_HS256 else CLIENT_AUTH_PRIVATE_KEY_JWT


def check_assertion_request(
    *,
    authorization: str | None,
    client_secret: str | None,
    client_assertion: str | None,
    client_assertion_type: str | None,
) -> str:
    """The assertion of a request that carries one; ``InvalidRequest`` when the request
    mixes methods or the type is missing or not ``jwt-bearer``."""
    scheme = (authorization or "").strip().partition(" ")[0].lower()
    if scheme == "basic" or client_secret:
        raise InvalidRequest("more than one client authentication method used")
    if client_assertion_type != CLIENT_ASSERTION_TYPE_JWT_BEARER:
        raise InvalidRequest(f"client_assertion_type must be {CLIENT_ASSERTION_TYPE_JWT_BEARER}")
    if not client_assertion:
        raise InvalidRequest("client_assertion is required with client_assertion_type")
    return client_assertion


def _segment(text: str) -> Any:
    try:
        return json.loads(base64url_decode(text, strict=True))
    except (binascii.Error, UnicodeError, ValueError, RecursionError) as exc:
        raise InvalidClient("malformed client assertion") from exc


def read_assertion(assertion: str, client_id: str | None) -> UnverifiedAssertion:
    """Parse header and claims without trusting them, to find the client (``sub``).
    ``client_id`` is the form's, which must equal ``sub`` when sent (RFC 7521 §4.2)."""
    parts = assertion.split(".")
    if len(assertion) > MAX_ASSERTION_LENGTH or len(parts) != 3 or not all(parts):
        raise InvalidClient("malformed client assertion")
    header, claims = _segment(parts[0]), _segment(parts[1])
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise InvalidClient("malformed client assertion")
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub or len(sub) > 255:
        raise InvalidClient("the client assertion needs sub, the client_id")
    if client_id and client_id != sub:
        raise InvalidRequest("client_id does not match the client assertion's sub")
    alg, kid = header.get("alg"), header.get("kid")
    if not isinstance(alg, str) or alg not in _KEY_TYPES:
        raise InvalidClient("client assertion algorithm not supported")
    if kid is not None and (not isinstance(kid, str) or not kid):
        raise InvalidClient("malformed client assertion")
    return UnverifiedAssertion(sub, alg, kid, header, claims)


def secret_key(secret: str) -> KeySet:
    """The ``client_secret_jwt`` key: the secret's UTF-8 bytes as an HMAC key."""
    return KeySet([OctKey.import_key(secret.encode("utf-8"))])


def _check_header(assertion: UnverifiedAssertion, method: str) -> None:
    allowed = SECRET_JWT_ALGS if method == CLIENT_AUTH_SECRET_JWT else PRIVATE_KEY_JWT_ALGS
    if assertion.alg not in allowed:
        raise InvalidClient(f"{method} assertions are signed with {', '.join(allowed)}")
    if _REFUSED_HEADERS & assertion.header.keys():
        raise InvalidClient("unsupported client assertion header")
    typ = assertion.header.get("typ")
    if typ is not None and (not isinstance(typ, str) or typ.lower() not in _ACCEPTED_TYPS):
        raise InvalidClient("the client assertion's typ is not JWT")


def _usable(key: Key, alg: str) -> bool:
    """The key may verify ``alg``: its type, its own ``alg``/``use``, its strength."""
    if key.key_type != _KEY_TYPES[alg]:
        return False
    if key.get("alg") not in (None, alg) or key.get("use") not in (None, "sig"):
        return False
    if isinstance(key, RSAKey):
        return bool(key.raw_value.key_size >= _MIN_RSA_BITS)
    if isinstance(key, ECKey):
        return bool(key.get("crv") == "P-256")
    return isinstance(key, OctKey)


def candidate_keys(keys: KeySet, alg: str, kid: str | None) -> list[Key]:
    """The keys to try: the one ``kid`` names, or every usable one without ``kid``."""
    named = [key for key in keys if kid is None or key.kid == kid]
    return [key for key in named if _usable(key, alg)]


def has_kid(keys: KeySet, kid: str | None) -> bool:
    """True when ``kid`` is None or names a key of ``keys`` (else: refetch the set)."""
    return kid is None or any(key.kid == kid for key in keys)


def _verify_signature(assertion: str, alg: str, keys: Iterable[Key]) -> None:
    for key in keys:
        try:
            jws.deserialize_compact(assertion, key, registry=_REGISTRIES[alg])
        except (JoseError, ValueError, TypeError):
            continue
        return
    raise InvalidClient("client assertion signature does not verify")


def _numeric(claims: Mapping[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidClient(f"invalid {name} in the client assertion")
    return float(value)


def _audience_ok(aud: Any, audiences: Collection[str]) -> bool:
    if isinstance(aud, str):
        return aud in audiences
    if isinstance(aud, list) and aud and all(isinstance(item, str) for item in aud):
        return any(item in audiences for item in aud)
    return False


def _check_times(claims: Mapping[str, Any], now: int, leeway: int) -> int:
    """The moment until which the assertion may be used (see the module text)."""
    exp, iat = _numeric(claims, "exp"), _numeric(claims, "iat")
    if exp is None:
        raise InvalidClient("the client assertion needs exp")
    if exp <= now - leeway:
        raise InvalidClient("the client assertion has expired")
    for name, moment in (("nbf", _numeric(claims, "nbf")), ("iat", iat)):
        if moment is not None and moment > now + leeway:
            raise InvalidClient(f"the client assertion's {name} is in the future")
    if exp > now + MAX_EXP_AHEAD_SECONDS + leeway:
        raise InvalidClient(f"the client assertion's exp is over {MAX_EXP_AHEAD_SECONDS} s ahead")
    if iat is None:
        if exp > now + MAX_LIFETIME_SECONDS + leeway:
            raise InvalidClient(
                f"without iat, the client assertion's exp is at most {MAX_LIFETIME_SECONDS} s ahead"
            )
        return math.ceil(exp)
    if iat + MAX_LIFETIME_SECONDS <= now - leeway:
        raise InvalidClient(f"the client assertion is older than {MAX_LIFETIME_SECONDS} s (iat)")
    return math.ceil(min(exp, iat + MAX_LIFETIME_SECONDS))


def _check_claims(
    assertion: UnverifiedAssertion,
    audiences: Collection[str],
    now: int,
    leeway: int,
    only_audience: str | None = None,
) -> VerifiedAssertion:
    claims = assertion.claims
    if claims.get("iss") != assertion.client_id:
        raise InvalidClient("the client assertion's iss must be the client_id")
    if only_audience is not None and claims.get("aud") != only_audience:
        raise InvalidClient("the client assertion's aud must be the issuer, as a string")
    if not _audience_ok(claims.get("aud"), audiences):
        raise InvalidClient("the client assertion's aud is not this server")
    usable_until = _check_times(claims, now, leeway)
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti or len(jti) > MAX_JTI_LENGTH:
        raise InvalidClient("the client assertion needs jti")
    return VerifiedAssertion(assertion.client_id, jti, usable_until, assertion.kid)


def verify_assertion(
    token: str,
    assertion: UnverifiedAssertion,
    *,
    method: str,
    keys: KeySet,
    audiences: Collection[str],
    now: int,
    leeway: int = DEFAULT_LEEWAY_SECONDS,
    only_audience: str | None = None,
) -> VerifiedAssertion:
    """Check ``token`` (parsed by :func:`read_assertion` into ``assertion``) for a client
    registered with ``method``, against its ``keys`` (:func:`secret_key` for
    ``client_secret_jwt``). Order: header, key, signature, then the claims. Raises
    ``InvalidClient``; the caller then spends ``jti`` once. ``only_audience``: the one
    ``aud`` accepted, as a string (FAPI 2.0 Security Profile §5.3.2.1: the issuer)."""
    _check_header(assertion, method)
    candidates = candidate_keys(keys, assertion.alg, assertion.kid)
    if not candidates:
        raise InvalidClient("no registered key of the client fits the client assertion")
    _verify_signature(token, assertion.alg, candidates)
    return _check_claims(assertion, audiences, now, leeway, only_audience)
