"""RFC 6749 §6 "Refreshing an Access Token", with rotation (DESIGN.md §2).

    The authorization server MUST: require client authentication for confidential
    clients [...], authenticate the client if client authentication is included and
    ensure that the refresh token was issued to the authenticated client, and validate
    the refresh token.

    scope: OPTIONAL. The requested scope MUST NOT include any scope not originally
    granted by the resource owner, and if omitted is treated as equal to the scope
    originally granted by the resource owner.

Every use spends the presented token and issues a new one in the same family, its parent
the spent one, with the scope of the spent one (§6: "the refresh token scope MUST be
identical"). Presenting a spent token again revokes the whole family and its grant's
access tokens (RFC 9700 §4.14.2; spec part 3). The access token's scope may be narrowed,
never widened; the person's current permissions bound it again, and a person who was
disabled or deleted gets ``invalid_grant``. A new ID token (without ``nonce``) is
returned when ``openid`` is in the scope (OIDC Core §12.2).

The usual case is one statement (``token_service.storage.spend_refresh_token``: spend,
insert the successor, read the person); any refusal goes through the general path
below it, which decides and answers as it always has. Both spend in a transaction that
commits only after the new access token's ``jti`` is tracked in Redis, and a reuse lists
the grant's access tokens as revoked before the family's revocation commits: a Redis
failure changes nothing, answers 503, and the client's retry with the same token works
(issue #19, attack 5; ``token_service.issuance``).
"""

from __future__ import annotations

import secrets
from typing import ClassVar

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import GRANT_TYPE_REFRESH_TOKEN
from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest, InvalidScope
from idp_common.protocol.rfc6749_scope import narrow_scope, parse_scope
from idp_common.storage.repos.clients import ClientRecord
from idp_common.storage.repos.refresh_tokens import (
    RefreshTokenRecord,
    RefreshTokenReused,
    issue_refresh_token,
    rotate_refresh_token,
)
from token_service.context import GrantDeps
from token_service.forms import TokenRequest
from token_service.issuance import (
    AccessTokenId,
    Authorization,
    TokenResponse,
    new_access_token_id,
    person_audiences,
    sign_tokens,
    track_access_token,
)
from token_service.queries import Person, UserClaims, person_in_session
from token_service.storage import hot_transaction, spend_refresh_token


def requested_scopes(requested: list[str], granted: list[str]) -> list[str]:
    """§6: omitted means the original scope; anything beyond it is ``invalid_scope``."""
    if not requested:
        return granted
    extra = [value for value in requested if value not in granted]
    if extra:
        raise InvalidScope("scope exceeds what was originally granted")
    return requested


async def _rotate(
    session: AsyncSession, token: str, client: ClientRecord, deps: GrantDeps
) -> RefreshTokenRecord:
    """Spend ``token``; on reuse also list the grant's access tokens as revoked (before
    the family's revocation commits)."""

    async def revoke_access_tokens(reused: RefreshTokenReused) -> None:
        if reused.grant_id is not None:
            await deps.ctx.revocations.revoke_grant(reused.grant_id, now=deps.now)

    return await rotate_refresh_token(
        session,
        token,
        client.pk,
        deps.now_dt,
        ip=deps.ip,
        before_reuse_commit=revoke_access_tokens,
    )


async def _spent(
    deps: GrantDeps,
    old: RefreshTokenRecord,
    found: Person | None,
    requested: list[str],
    ident: AccessTokenId,
) -> tuple[list[str], Person | None]:
    """Inside the spend's transaction: the scope (§6), the person the token speaks for
    (None for a client's own token), and the new access token tracked under its grant.
    Raising here rolls the spend back."""
    scopes = requested_scopes(requested, parse_scope(old.scope))
    if old.user_id is not None and (found is None or found.claims.user.disabled):
        raise InvalidGrant("the person is no longer able to sign in")
    if old.grant_id is not None:
        await track_access_token(deps, old.grant_id, ident)
    return scopes, found if old.user_id is not None else None


class RefreshTokenGrant:
    grant_type: ClassVar[str] = GRANT_TYPE_REFRESH_TOKEN
    parameters: ClassVar[frozenset[str]] = frozenset({"refresh_token", "scope"})
    requires_client_auth: ClassVar[bool] = False

    async def handle(
        self, req: TokenRequest, client: ClientRecord, deps: GrantDeps
    ) -> TokenResponse:
        if not req.refresh_token:
            raise InvalidRequest("refresh_token is required")
        requested = parse_scope(req.scope)
        successor = secrets.token_urlsafe(32)
        ident = new_access_token_id(deps)
        async with hot_transaction(deps.ctx.resources.hot) as conn:
            spent = await spend_refresh_token(
                conn,
                token=req.refresh_token,
                client_pk=client.pk,
                requested=requested,
                successor=successor,
                now=deps.now_dt,
            )
            if spent is not None:
                scopes, person = await _spent(deps, *spent, requested, ident)
        if spent is None:
            return await self._general(req.refresh_token, requested, client, deps, ident)
        return await _tokens(deps, client, spent[0], scopes, person, ident, successor)

    async def _general(
        self,
        token: str,
        requested: list[str],
        client: ClientRecord,
        deps: GrantDeps,
        ident: AccessTokenId,
    ) -> TokenResponse:
        """Every case the single statement leaves alone: refusals, and rotations that
        became possible in between (a race), decided in one transaction."""
        async with deps.ctx.resources.sessions() as session:
            old = await _rotate(session, token, client, deps)
            found = await person_in_session(session, old.user_id) if old.user_id else None
            scopes, person = await _spent(deps, old, found, requested, ident)
            new_token = await issue_refresh_token(
                session,
                family_id=old.family_id,
                grant_id=old.grant_id,
                parent_id=old.id,
                client_pk=client.pk,
                user_id=old.user_id,
                scope=old.scope,
                session_sid=old.session_sid,
                auth_time=old.auth_time,
                acr=old.acr,
                amr=old.amr,
                now=deps.now_dt,
            )
            await session.commit()
        return await _tokens(deps, client, old, scopes, person, ident, new_token)


async def _tokens(
    deps: GrantDeps,
    client: ClientRecord,
    old: RefreshTokenRecord,
    scopes: list[str],
    person: Person | None,
    ident: AccessTokenId,
    refresh_token: str,
) -> TokenResponse:
    """After the commit: narrow the scope to what the person holds now, and sign."""
    claims: UserClaims | None = None
    if person is not None and old.user_id is not None:
        claims = person.claims
        deps.ctx.users.put(old.user_id, claims)
    held = person.scopes if person is not None else None
    scopes = narrow_scope(scopes, client.scopes, held)
    auth = await _authorization(deps, client, old, scopes, claims)
    return sign_tokens(deps, auth, ident, refresh_token=refresh_token)


async def _authorization(
    deps: GrantDeps,
    client: ClientRecord,
    old: RefreshTokenRecord,
    scopes: list[str],
    person: UserClaims | None,
) -> Authorization:
    audiences = await deps.ctx.audiences_for(scopes)
    if old.user_id is not None:
        subject = str(old.user_id)
        audiences = tuple(person_audiences(deps.ctx.settings.api_audience, audiences))
    else:
        subject = client.client_id
    return Authorization(
        subject=subject,
        client_id=client.client_id,
        scopes=scopes,
        audiences=audiences,
        auth_time=int(old.auth_time.timestamp()) if old.auth_time else None,
        acr=old.acr,
        amr=old.amr,
        sid=old.session_sid,
        grant_id=old.grant_id,
        user=person,
    )
