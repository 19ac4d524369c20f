"""RFC 6749 §4.1.3 "Access Token Request" for the authorization code grant.

    The authorization server MUST: require client authentication for confidential
    clients [...], ensure that the authorization code was issued to the authenticated
    confidential client, or if the client is public, ensure that the code was issued to
    "client_id" in the request, verify that the authorization code is valid, and ensure
    that the "redirect_uri" parameter is present if the "redirect_uri" parameter was
    included in the initial authorization request [...], and if included ensure that
    their values are identical.

§4.1.2: "If an authorization code is used more than once, the authorization server MUST
deny the request and SHOULD revoke (when possible) all tokens previously issued based on
that authorization code." Here: the grant's refresh tokens are revoked in Postgres and
its access tokens listed as revoked in Redis; the replay is audited.

RFC 7636 §4.6: when the authorization request carried a ``code_challenge`` the verifier
must match (S256 only); a public client always sent one (DESIGN.md §2), and a verifier
sent for a code without a challenge is refused (PKCE downgrade, RFC 9700 §2.1.1).

The code is burnt on every failure after it was found (the failure is committed and
audited), so a wrong verifier or redirect URI cannot be retried. Burning it and reading
its person is one statement (``token_service.storage.consume_code``); a code it does not
find goes through ``consume_authorization_code``, which tells a replay from an unknown
code.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import ClassVar, Final, NoReturn

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.audit import AuditEntry, write_audit
from idp_common.protocol.constants import (
    GRANT_TYPE_AUTHORIZATION_CODE,
    GRANT_TYPE_REFRESH_TOKEN,
    SCOPE_OFFLINE_ACCESS,
)
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest
from idp_common.protocol.rfc6749_scope import format_scope, narrow_scope, parse_scope
from idp_common.protocol.rfc7636_pkce import verify_pkce
from idp_common.repos.clients import ClientRecord
from idp_common.repos.codes import CodeGrant, consume_authorization_code
from idp_common.repos.refresh_tokens import issue_refresh_token, revoke_by_grant_id
from token_service.context import GrantDeps
from token_service.forms import TokenRequest
from token_service.issuance import Authorization, TokenResponse, issue_tokens, person_audiences
from token_service.queries import UserClaims
from token_service.storage import consume_code

AUDIT_CODE_REPLAYED: Final = "token.code_replayed"
AUDIT_GRANT_FAILED: Final = "token.grant_failed"


def check_code(code: CodeGrant, client: ClientRecord, req: TokenRequest, now: datetime) -> None:
    """The checks of §4.1.3 and RFC 7636 §4.6 on a consumed code; raises ``InvalidGrant``."""
    if code.client_pk != client.pk:
        raise InvalidGrant("the authorization code was issued to another client")
    if code.expires_at <= now:
        raise InvalidGrant("the authorization code has expired")
    if code.redirect_uri != req.redirect_uri:
        raise InvalidGrant("redirect_uri does not match the authorization request")
    if code.code_challenge:
        verify_pkce(req.code_verifier, code.code_challenge, code.code_challenge_method)
    elif not client.is_confidential:
        raise InvalidGrant("PKCE is required for public clients")
    elif req.code_verifier:
        raise InvalidGrant("code_verifier sent but the authorization request had no challenge")


class AuthorizationCodeGrant:
    grant_type: ClassVar[str] = GRANT_TYPE_AUTHORIZATION_CODE
    parameters: ClassVar[frozenset[str]] = frozenset({"code", "redirect_uri", "code_verifier"})
    requires_client_auth: ClassVar[bool] = False

    async def handle(
        self, req: TokenRequest, client: ClientRecord, deps: GrantDeps
    ) -> TokenResponse:
        if not req.code:
            raise InvalidRequest("code is required")
        if not req.redirect_uri:
            raise InvalidRequest("redirect_uri is required")
        async with deps.ctx.resources.hot.connection() as conn:
            consumed = await consume_code(conn, req.code, datetime.now(UTC))
        if consumed is None:
            await _unknown_or_replayed(req.code, client, deps)
        code, person = consumed
        try:
            check_code(code, client, req, deps.now_dt)
            if person is None or person.claims.user.disabled:
                raise InvalidGrant("the person is no longer able to sign in")
        except InvalidGrant as exc:
            async with deps.ctx.resources.sessions() as session:
                _audit_failure(session, deps, client, code, req.code, exc)
                await session.commit()
            raise
        scopes = narrow_scope(parse_scope(code.scope), client.scopes, person.scopes)
        refresh = await _refresh_token(deps, client, code, scopes)
        deps.ctx.users.put(code.user_id, person.claims)
        auth = await _authorization(deps, client, code, scopes, person.claims)
        return await issue_tokens(deps, auth, refresh_token=refresh)


async def _unknown_or_replayed(value: str, client: ClientRecord, deps: GrantDeps) -> NoReturn:
    """The code was not there to burn: unknown, or used before (a replay, §4.1.2)."""
    async with deps.ctx.resources.sessions() as session:
        _, replayed = await consume_authorization_code(session, value)
        if replayed is not None:
            await _replay(session, replayed, client, deps)
    raise InvalidGrant("the authorization code is invalid")


async def _authorization(
    deps: GrantDeps,
    client: ClientRecord,
    code: CodeGrant,
    scopes: list[str],
    person: UserClaims,
) -> Authorization:
    audiences = await deps.ctx.audiences_for(scopes)
    return Authorization(
        subject=str(code.user_id),
        client_id=client.client_id,
        scopes=scopes,
        audiences=person_audiences(deps.ctx.settings.api_audience, audiences),
        auth_time=int(code.auth_time.timestamp()),
        acr=code.acr,
        amr=code.amr,
        sid=code.session_sid,
        grant_id=code.grant_id,
        user=person,
        nonce=code.nonce,
    )


async def _refresh_token(
    deps: GrantDeps,
    client: ClientRecord,
    code: CodeGrant,
    scopes: list[str],
) -> str | None:
    """DESIGN.md §2: issued when ``offline_access`` was granted and the client may refresh.

    Written after the code was burnt (its own commit): a failure here leaves the code
    used, and the client starts again, as for any failed exchange."""
    if SCOPE_OFFLINE_ACCESS not in scopes or GRANT_TYPE_REFRESH_TOKEN not in client.grant_types:
        return None
    async with deps.ctx.resources.sessions() as session:
        token = await issue_refresh_token(
            session,
            family_id=uuid.uuid4(),
            grant_id=code.grant_id,
            parent_id=None,
            client_pk=client.pk,
            user_id=code.user_id,
            scope=format_scope(scopes),
            session_sid=code.session_sid,
            auth_time=code.auth_time,
            acr=code.acr,
            amr=list(code.amr),
            now=deps.now_dt,
        )
        await session.commit()
    return token


async def _replay(
    session: AsyncSession, grant_id: uuid.UUID, client: ClientRecord, deps: GrantDeps
) -> None:
    """§4.1.2: deny, revoke what the code produced, audit. Raises ``InvalidGrant``."""
    revoked = await revoke_by_grant_id(session, grant_id, deps.now_dt)
    write_audit(
        session,
        AuditEntry(
            action=AUDIT_CODE_REPLAYED,
            status_code=400,
            ip=deps.ip,
            actor=client.client_id,
            target_type="grant",
            target=str(grant_id),
            detail={"refresh_tokens_revoked": revoked},
        ),
    )
    await session.commit()
    await deps.ctx.revocations.revoke_grant(grant_id, now=deps.now)
    raise InvalidGrant("the authorization code was already used")


def _audit_failure(
    session: AsyncSession,
    deps: GrantDeps,
    client: ClientRecord,
    code: CodeGrant,
    value: str,
    exc: InvalidGrant,
) -> None:
    write_audit(
        session,
        AuditEntry(
            action=AUDIT_GRANT_FAILED,
            status_code=400,
            ip=deps.ip,
            actor=client.client_id,
            target_type="grant",
            target=str(code.grant_id),
            detail={
                "grant_type": GRANT_TYPE_AUTHORIZATION_CODE,
                "reason": exc.description,
                "code_digest_prefix": digest(value).hex()[:12],
            },
        ),
    )
