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
must match (S256 only); a public client always sent one (docs/design.md §2), and a verifier
sent for a code without a challenge is refused (PKCE downgrade, RFC 9700 §2.1.1).

One repository call burns the code (``exchange_authorization_code`` of
``idp_common.storage.repos.codes``: one statement that also reads the person), and
:func:`judge_code` decides on what it read. The code is burnt on every failure after it
was found (the failure is committed, then audited), so a wrong verifier or redirect URI
cannot be retried; so is a ``resource`` (RFC 8707) of which the code grants no scope
(``invalid_target``; an unknown or malformed one is refused before the burn). For a code
that passes, the grant's first refresh token is stored and
the new access token's ``jti`` tracked in Redis; if either fails, the repository takes
both back (the refresh token deleted, the code un-burnt). A replay lists the grant's
access tokens as revoked before the refresh tokens' revocation commits. So a Redis
failure answers 503 and leaves the code usable: the client's retry with the same code is
an exchange, not a replay (docs/security.md, attack 5).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Final

from idp_common.protocol.constants import (
    GRANT_TYPE_AUTHORIZATION_CODE,
    GRANT_TYPE_REFRESH_TOKEN,
    SCOPE_OFFLINE_ACCESS,
)
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest
from idp_common.protocol.rfc6749_scope import format_scope, narrow_scope, parse_scope
from idp_common.protocol.rfc7636_pkce import verify_pkce
from idp_common.storage.repos.audit import AuditEntry, record_audit
from idp_common.storage.repos.clients import ClientRecord
from idp_common.storage.repos.codes import CodeGrant, Exchanged, exchange_authorization_code
from token_service.context import GrantDeps
from token_service.dpop import check_code_binding, refresh_jkt
from token_service.forms import TokenRequest
from token_service.issuance import (
    TokenResponse,
    grant_authorization,
    new_access_token_id,
    sign_tokens,
    track_access_token,
)
from token_service.protocol.rfc8707_resource import InvalidTarget
from token_service.repos.people import PERSON, Person
from token_service.resource_indicators import Targets, narrow_authorization, requested_targets

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
class CodeVerdict:
    """What a burnt code grants: the scopes and the first refresh token's scope (docs/design.md
    §2: when ``offline_access`` was granted and the client may refresh), or a refusal."""

    scopes: list[str]
    refresh_scope: str | None = None
    refusal: InvalidGrant | InvalidTarget | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None


def judge_code(
    code: CodeGrant,
    person: Person | None,
    client: ClientRecord,
    req: TokenRequest,
    now: datetime,
    targets: Targets | None = None,
    *,
    proved_jkt: str | None = None,
) -> CodeVerdict:
    """Pure: the verdict on a burnt code (a refusal is returned, so the burn commits).
    ``targets``: the request's resources (RFC 8707), each of which the grant must reach."""
    try:
        check_code(code, client, req, now)
        check_code_binding(code.dpop_jkt, proved_jkt)  # RFC 9449 §10
        if person is None or person.claims.user.disabled:
            raise InvalidGrant("the person is no longer able to sign in")
        scopes = narrow_scope(parse_scope(code.scope), client.scopes, person.scopes)
        if targets is not None:
            targets.select(scopes)
    except (InvalidGrant, InvalidTarget) as exc:
        return CodeVerdict([], refusal=exc)
    return CodeVerdict(scopes, refresh_scope(scopes, client))


def refresh_scope(scopes: list[str], client: ClientRecord) -> str | None:
    """The scope of a grant's first refresh token (docs/design.md §2: when ``offline_access``
    was granted and the client may refresh), or None: no refresh token. The device grant
    (``rfc8628_device_code``) follows the same rule."""
    offline = SCOPE_OFFLINE_ACCESS in scopes and GRANT_TYPE_REFRESH_TOKEN in client.grant_types
    return format_scope(scopes) if offline else None


class AuthorizationCodeGrant:
    grant_type: ClassVar[str] = GRANT_TYPE_AUTHORIZATION_CODE
    parameters: ClassVar[frozenset[str]] = frozenset(
        {"code", "redirect_uri", "code_verifier", "resource"}
    )
    requires_client_auth: ClassVar[bool] = False

    async def handle(
        self, req: TokenRequest, client: ClientRecord, deps: GrantDeps
    ) -> TokenResponse:
        if not req.code:
            raise InvalidRequest("code is required")
        if not req.redirect_uri:
            raise InvalidRequest("redirect_uri is required")
        ident = new_access_token_id(deps)
        targets = await requested_targets(deps, req.resource)  # before the code burns

        async def on_accept(done: Exchanged[Person, CodeVerdict]) -> None:
            await track_access_token(deps, done.code.grant_id, ident)

        async def on_replay(grant_id: uuid.UUID, revoked: int) -> AuditEntry:
            await deps.ctx.revocations.revoke_grant(grant_id, now=deps.now)
            detail = {"refresh_tokens_revoked": revoked}
            return _grant_entry(AUDIT_CODE_REPLAYED, deps, client, grant_id, detail)

        done = await exchange_authorization_code(
            deps.ctx.resources,
            req.code,
            now=deps.now_dt,
            person=PERSON,
            decide=lambda code, person: judge_code(
                code, person, client, req, deps.now_dt, targets, proved_jkt=deps.dpop_jkt
            ),
            on_accept=on_accept,
            on_replay=on_replay,
            refresh_jkt=refresh_jkt(client, deps.dpop_jkt),
        )
        code, refusal = done.code, done.decision.refusal
        if refusal is not None or done.person is None:
            refusal = refusal or InvalidGrant("the person is no longer able to sign in")
            detail = {
                "grant_type": GRANT_TYPE_AUTHORIZATION_CODE,
                "reason": refusal.description,
                "code_digest_prefix": digest(req.code).hex()[:12],
            }
            entry = _grant_entry(AUDIT_GRANT_FAILED, deps, client, code.grant_id, detail)
            await record_audit(deps.ctx.resources.sessions, entry)
            raise refusal
        person = done.person.claims
        deps.ctx.users.put(str(code.user_id), person)
        auth = await grant_authorization(
            deps,
            client,
            done.decision.scopes,
            code,
            user_id=code.user_id,
            person=person,
            nonce=code.nonce,
        )
        auth = narrow_authorization(auth, targets, deps.ctx.settings.api_audience)
        return sign_tokens(deps, auth, ident, refresh_token=done.refresh_token)


def _grant_entry(
    action: str,
    deps: GrantDeps,
    client: ClientRecord,
    grant_id: uuid.UUID,
    detail: dict[str, Any],
) -> AuditEntry:
    return AuditEntry(
        action=action,
        status_code=400,
        ip=deps.ip,
        actor=client.client_id,
        target_type="grant",
        target=str(grant_id),
        detail=detail,
    )
