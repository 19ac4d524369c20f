"""What a token is, for introspection (RFC 7662) and revocation (RFC 7009).

A JWT (three dot-separated parts) is taken for an access token, anything else for an
opaque refresh token. The shape alone decides the lookup, so ``token_type_hint`` is
accepted and not needed (RFC 7662 §2.1, RFC 7009 §2.1: a hint is only an optimisation,
and a wrong one must not make a lookup fail).

Access tokens are checked offline: a signature by one of the provider's keys, ``typ``
``at+jwt``, the issuer, not expired; the audience is not checked (the caller is the
client the token was issued to, not a resource server), so the token's own ``aud`` is
passed to the verifier. Then whether it still stands (:mod:`idp_common.web.token_standing`:
not revoked, its session not ended, its person and client still there; one shared Redis
read, Postgres only when a worker has not seen the person or client yet). An
active access token answers ``token_type`` (RFC 7662 §2.2): ``DPoP`` when bound to a key
(``cnf.jkt``, RFC 9449 §6.2), else ``Bearer``. The
signature of a token is checked once per worker (``TokenContext.access_token_claims``);
its claims every time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from idp_common.crypto.jwt import InvalidToken, check_claims
from idp_common.protocol.constants import TOKEN_TYPE_BEARER, TOKEN_TYPE_DPOP
from idp_common.protocol.rfc9449_dpop import bound_jkt
from idp_common.storage.repos.clients import ClientRecord
from idp_common.storage.repos.refresh_tokens import (
    RefreshTokenRecord,
    find_refresh_token,
    revoke_token,
)
from token_service.context import GrantDeps

INACTIVE: dict[str, Any] = {"active": False}


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2


def _own_audience(claims: dict[str, Any]) -> str | None:
    """The token's first ``aud``: what the verifier is told to expect."""
    aud = claims.get("aud")
    if isinstance(aud, list) and aud and isinstance(aud[0], str):
        return aud[0]
    return aud if isinstance(aud, str) else None


def verify_access_token(deps: GrantDeps, token: str) -> dict[str, Any] | None:
    """The claims of a valid access token of this provider (any audience), else None."""
    try:
        claims = deps.ctx.access_token_claims(token)
        audience = _own_audience(claims)
        if audience is None:
            return None
        check_claims(claims, issuer=deps.ctx.settings.issuer, audience=audience, now=deps.now)
    except InvalidToken:
        return None
    return claims


async def introspect_access_token(
    deps: GrantDeps, token: str, client: ClientRecord
) -> dict[str, Any]:
    claims = verify_access_token(deps, token)
    if claims is None or claims.get("client_id") != client.client_id:
        return INACTIVE
    if (await deps.ctx.token_standing.check(claims)).refusal is not None:
        return INACTIVE
    jkt = bound_jkt(claims)  # RFC 9449 §6.2: a bound token's type and confirmation
    token_type = TOKEN_TYPE_BEARER if jkt is None else TOKEN_TYPE_DPOP
    answer: dict[str, Any] = {"active": True, "token_type": token_type}
    if jkt is not None:
        answer["cnf"] = {"jkt": jkt}
    for name in ("scope", "client_id", "sub", "aud", "iss", "exp", "iat", "jti"):
        if name in claims:
            answer[name] = claims[name]
    for name in ("auth_time", "acr", "amr", "sid"):
        if name in claims:
            answer[name] = claims[name]
    return answer


def _epoch(moment: datetime) -> int:
    return int(moment.timestamp())


def refresh_token_answer(row: RefreshTokenRecord, client: ClientRecord) -> dict[str, Any]:
    """No ``token_type``: RFC 7662 §2.2 names by it an access token type of
    RFC 6749 §7.1 (``Bearer``, ``DPoP``: how the token is presented to a resource), and a
    refresh token is presented to no resource. It used to answer ``refresh_token``, which
    is no registered type."""
    answer: dict[str, Any] = {
        "active": True,
        "scope": row.scope,
        "client_id": client.client_id,
        "iat": _epoch(row.issued_at),
        "exp": _epoch(row.expires_at),
        "sub": str(row.user_id) if row.user_id else client.client_id,
    }
    if row.auth_time is not None:
        answer["auth_time"] = _epoch(row.auth_time)
    return answer


async def introspect_refresh_token(
    deps: GrantDeps, token: str, client: ClientRecord
) -> dict[str, Any]:
    async with deps.ctx.resources.hot.connection() as conn:
        found = await find_refresh_token(conn, token, client.pk, deps.now_dt)
    if found is None or not found[1]:
        return INACTIVE
    return refresh_token_answer(found[0], client)


async def revoke_access_token(deps: GrantDeps, token: str, client: ClientRecord) -> bool:
    """List the token's ``jti`` until it expires; False when it is not this client's."""
    claims = verify_access_token(deps, token)
    if claims is None or claims.get("client_id") != client.client_id:
        return False
    jti, exp = claims.get("jti"), claims.get("exp")
    if not isinstance(jti, str) or not isinstance(exp, int):
        return False
    await deps.ctx.revocations.revoke_jti(jti, exp=exp, now=deps.now)
    return True


async def revoke_refresh_token(deps: GrantDeps, token: str, client: ClientRecord) -> bool:
    """Revoke the token's family and its grant's access tokens (RFC 7009 §2.1)."""
    async with deps.ctx.resources.sessions() as session:
        row = await revoke_token(session, token, client.pk, deps.now_dt)
        await session.commit()
    if row is None:
        return False
    if row.grant_id is not None:
        await deps.ctx.revocations.revoke_grant(row.grant_id, now=deps.now)
    return True
