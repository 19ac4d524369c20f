"""Claims of OpenID Connect Core 1.0 that are pure computations.

- ``session_sid``: the ``sid`` claim, base64url(SHA-256(session id)) (docs/design.md): a
  reference to the browser session that never reveals its bearer id.
- ``at_hash``: §3.1.3.6, the left half of the hash of the access token, base64url; the
  hash is the one of the ID token's ``alg``: SHA-256 for RS256, PS256 and ES256, SHA-512
  for EdDSA with Ed25519 (OIDC Core 1.0 errata set 2 §3.1.3.6; as openid-client and
  Authlib compute it).
- ``id_token_claims``: §2, the claims of an ID token; ``present_claims``: the optional
  ones that have a value (an absent claim is left out, never ``null``).
- ``digest``: SHA-256 of an opaque secret (codes, refresh tokens, client secrets) as
  stored; the secret itself is never stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from idp_common.protocol.constants import ALG_EDDSA, SIGNING_ALGORITHM
from idp_common.protocol.rfc4648_base64url import base64url_encode


def digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8")).digest()


def session_sid(session_id: str) -> str:
    return base64url_encode(hashlib.sha256(session_id.encode("utf-8")).digest())


def at_hash(access_token: str, alg: str = SIGNING_ALGORITHM) -> str:
    data = access_token.encode("ascii")
    full = hashlib.sha512(data).digest() if alg == ALG_EDDSA else hashlib.sha256(data).digest()
    return base64url_encode(full[: len(full) // 2])


def present_claims(**values: Any) -> dict[str, Any]:
    """The optional claims that have a value: a claim without one is left out, never null."""
    return {name: value for name, value in values.items() if value is not None}


def id_token_claims(
    *,
    issuer: str,
    subject: str,
    client_id: str,
    now: int,
    ttl: int,
    auth_time: int,
    acr: str,
    amr: Iterable[str],
    nonce: str | None = None,
    sid: str | None = None,
    access_token: str | None = None,
    extra: dict[str, Any] | None = None,
    alg: str = SIGNING_ALGORITHM,
) -> dict[str, Any]:
    """ID token claims (OIDC Core §2) of an ID token signed with ``alg`` (``at_hash``);
    ``extra`` adds released profile claims."""
    claims: dict[str, Any] = {
        "iss": issuer,
        "sub": subject,
        "aud": client_id,
        "azp": client_id,
        "iat": now,
        "exp": now + ttl,
        "auth_time": auth_time,
        "acr": acr,
        "amr": list(amr),
    }
    hashed = at_hash(access_token, alg) if access_token is not None else None
    claims.update(present_claims(nonce=nonce, sid=sid, at_hash=hashed))
    if extra:
        claims.update({k: v for k, v in extra.items() if k not in claims})
    return claims
