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

A code that passes is burnt in a transaction with the grant's first refresh token, and
the transaction commits only after the new access token's ``jti`` is tracked in Redis; a
replay lists the grant's access tokens as revoked before the refresh tokens' revocation
commits. So a Redis failure changes nothing and answers 503, and the client's retry with
the same code is an exchange, not a replay (issue #19, attack 5; ``token_service.issuance``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar, Final, NoReturn

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import (
    GRANT_TYPE_AUTHORIZATION_CODE,
    GRANT_TYPE_REFRESH_TOKEN,
    SCOPE_OFFLINE_ACCESS,
)
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest
from idp_common.protocol.rfc6749_scope import format_scope, narrow_scope, parse_scope
from idp_common.protocol.rfc7636_pkce import verify_pkce
from idp_common.storage.db.engine import DriverConnection
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.clients import ClientRecord
from idp_common.storage.repos.codes import CodeGrant, consume_authorization_code
from idp_common.storage.repos.refresh_tokens import revoke_by_grant_id
from token_service.context import GrantDeps
from token_service.forms import TokenRequest
from token_service.issuance import (
    Authorization,
    TokenResponse,
    new_access_token_id,
    person_audiences,
    sign_tokens,
    track_access_token,
)
from token_service.queries import Person, UserClaims
from token_service.storage import consume_code, hot_transaction, insert_refresh_token

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


@dataclass(frozen=True)
class _Burnt:
    """What burning a code found: the code and its person, the scopes granted and the
    refresh token issued (a code that passes), or the reason it was refused."""

    code: CodeGrant
    person: Person | None
    scopes: list[str]
    refresh_token: str | None = None
    refusal: InvalidGrant | None = None


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
        ident = new_access_token_id(deps)
        async with hot_transaction(deps.ctx.resources.hot) as conn:
            consumed = await consume_code(conn, req.code, datetime.now(UTC))
            burnt = None if consumed is None else await _burn(conn, *consumed, client, req, deps)
            if burnt is not None and burnt.refusal is None:
                await track_access_token(deps, burnt.code.grant_id, ident)
        if burnt is None:
            await _unknown_or_replayed(req.code, client, deps)
        if burnt.refusal is not None or burnt.person is None:
            async with deps.ctx.resources.sessions() as session:
                refusal = burnt.refusal or InvalidGrant("the person is no longer able to sign in")
                _audit_failure(session, deps, client, burnt.code, req.code, refusal)
                await session.commit()
            raise refusal
        code, person = burnt.code, burnt.person.claims
        deps.ctx.users.put(code.user_id, person)
        auth = await _authorization(deps, client, code, burnt.scopes, person)
        return sign_tokens(deps, auth, ident, refresh_token=burnt.refresh_token)


async def _burn(
    conn: DriverConnection,
    code: CodeGrant,
    person: Person | None,
    client: ClientRecord,
    req: TokenRequest,
    deps: GrantDeps,
) -> _Burnt:
    """Inside the transaction that burnt ``code``: the checks, then the refresh token.
    A refusal is returned, not raised, so that the burn still commits."""
    try:
        check_code(code, client, req, deps.now_dt)
        if person is None or person.claims.user.disabled:
            raise InvalidGrant("the person is no longer able to sign in")
    except InvalidGrant as exc:
        return _Burnt(code, person, [], refusal=exc)
    scopes = narrow_scope(parse_scope(code.scope), client.scopes, person.scopes)
    refresh = None
    if SCOPE_OFFLINE_ACCESS in scopes and GRANT_TYPE_REFRESH_TOKEN in client.grant_types:
        # DESIGN.md §2: issued when offline_access was granted and the client may refresh.
        refresh = await insert_refresh_token(
            conn, code, scope=format_scope(scopes), now=deps.now_dt
        )
    return _Burnt(code, person, scopes, refresh)


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
    # Redis first: if it fails, nothing commits and the next replay does both.
    await deps.ctx.revocations.revoke_grant(grant_id, now=deps.now)
    await session.commit()
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
