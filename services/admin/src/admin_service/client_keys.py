"""The public keys of a ``private_key_jwt`` client as an administrator registers them
(OIDC Registration §2 ``jwks`` / ``jwks_uri``, RFC 7517 §5, RFC 7523 §2.2).

- ``jwks``: a JWK Set, ``{"keys": [...]}``, of 1 to :data:`MAX_KEYS` keys, each one
  joserfc can import, each public: no private or symmetric member (``d``, ``p``, ``q``,
  ``dp``, ``dq``, ``qi``, ``oth``, ``k``). Types: RSA of at least 2048 bits, EC on P-256,
  OKP (Ed25519; stored, though no accepted assertion algorithm uses it yet). ``use``, when
  present, is ``sig``; ``kid`` values are distinct.
- ``jwks_uri``: an absolute URI, ``https`` (plain ``http`` only to a loopback host), no
  fragment nor user information, at most 2000 characters; unless the deployment allows it
  (``SVC_CLIENT_JWKS_ALLOW_PRIVATE``), its host is not a loopback, private or link-local
  address nor a local name (:mod:`idp_common.protocol.rfc6890_special_addresses`); the
  token service checks the resolved address again when it fetches.
- ``token_endpoint_auth_method: private_key_jwt`` needs exactly one of the two. Another
  method may keep keys (unused), so a client can be switched back and forth.

Each problem is a :class:`~idp_common.errors.FieldError` naming the field.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final
from urllib.parse import urlsplit

from joserfc.errors import JoseError
from joserfc.jwk import ECKey, JWKRegistry, OKPKey, RSAKey

from idp_common.errors import FieldError
from idp_common.protocol.constants import CLIENT_AUTH_PRIVATE_KEY_JWT
from idp_common.protocol.rfc6890_special_addresses import host_problem
from idp_common.storage.repos.client_shapes import ClientSettings

__all__ = ["MAX_KEYS", "key_errors"]

MAX_KEYS: Final = 10
MIN_RSA_BITS: Final = 2048
_PRIVATE_MEMBERS: Final = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})
_CURVES: Final = {"EC": frozenset({"P-256"}), "OKP": frozenset({"Ed25519"})}
JWKS, JWKS_URI, METHOD = "jwks", "jwks_uri", "token_endpoint_auth_method"


def _member_problem(jwk: dict[str, Any]) -> str | None:
    """What the JWK's members alone tell against it, or None."""
    kty = jwk.get("kty")
    problem = None
    if _PRIVATE_MEMBERS & jwk.keys():
        problem = "must be a public key (no d, p, q, dp, dq, qi, oth or k)"
    elif kty not in ("RSA", "EC", "OKP"):
        problem = "kty must be RSA, EC or OKP"
    elif kty in _CURVES and jwk.get("crv") not in _CURVES[kty]:
        problem = f"crv must be {' or '.join(sorted(_CURVES[kty]))}"
    elif jwk.get("use") not in (None, "sig"):
        problem = "use must be sig"
    return problem


def _key_problem(jwk: Any) -> str | None:
    """Why ``jwk`` cannot be one of a client's public signing keys, or None."""
    if not isinstance(jwk, dict):
        return "must be a JSON object (a JWK)"
    problem = _member_problem(jwk)
    if problem is not None:
        return problem
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # joserfc warns on small RSA keys: judged below
            key = JWKRegistry.import_key(jwk)
    except (JoseError, ValueError, TypeError, KeyError):
        return "not a valid JWK"
    if isinstance(key, RSAKey) and key.raw_value.key_size < MIN_RSA_BITS:
        return f"RSA keys must have at least {MIN_RSA_BITS} bits"
    if not isinstance(key, RSAKey | ECKey | OKPKey):
        return "not a signing key"
    return None


def jwks_errors(jwks: dict[str, Any]) -> list[FieldError]:
    """The problems of a ``jwks`` value (see the module text)."""
    keys = jwks.get("keys")
    if set(jwks) != {"keys"} or not isinstance(keys, list):
        return [FieldError(JWKS, 'must be a JWK Set: {"keys": [...]}')]
    if not 1 <= len(keys) <= MAX_KEYS:
        return [FieldError(JWKS, f"1 to {MAX_KEYS} keys")]
    errors: list[FieldError] = []
    kids: set[str] = set()
    for i, jwk in enumerate(keys):
        problem = _key_problem(jwk)
        kid = jwk.get("kid") if isinstance(jwk, dict) else None
        if problem is None and kid is not None and (not isinstance(kid, str) or kid in kids):
            problem = "kid must be a string, distinct in the set"
        if isinstance(kid, str):
            kids.add(kid)
        if problem:
            errors.append(FieldError(f"{JWKS}.keys[{i}]", problem))
    return errors


UriCheck = Callable[[str], "str | None"]


def jwks_uri_problem(uri: str, *, allow_private: bool, uri_problem: UriCheck) -> str | None:
    """Why the provider must not fetch keys from ``uri`` (``uri_problem``: the shape rule
    of every client URI, ``admin_service.client_rules.uri_problem``), or None."""
    problem = uri_problem(uri)
    if problem is not None or allow_private:
        return problem
    kind = host_problem(urlsplit(uri).hostname or "")
    if kind is None:
        return None
    return (
        f"must not point at a {kind} address: the provider fetches it from its own network "
        "(allowed only with SVC_CLIENT_JWKS_ALLOW_PRIVATE)"
    )


def key_errors(
    settings: ClientSettings, *, allow_private: bool, uri_problem: UriCheck
) -> list[FieldError]:
    """The problems of ``jwks`` / ``jwks_uri`` for the client's method."""
    jwks, uri = settings.jwks, settings.jwks_uri
    errors: list[FieldError] = []
    if jwks is not None:
        errors += jwks_errors(jwks)
    if uri is not None:
        problem = jwks_uri_problem(uri, allow_private=allow_private, uri_problem=uri_problem)
        if problem:
            errors.append(FieldError(JWKS_URI, problem))
    if settings.token_endpoint_auth_method == CLIENT_AUTH_PRIVATE_KEY_JWT:
        if jwks is None and uri is None:
            errors.append(FieldError(METHOD, "private_key_jwt needs jwks or jwks_uri"))
        elif jwks is not None and uri is not None:
            errors.append(FieldError(JWKS_URI, "give jwks or jwks_uri, not both"))
    return errors
