"""RFC 6749 §6 "Refreshing an Access Token", with rotation (docs/design.md §2).

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
access tokens (RFC 9700 §4.14.2; contract §3). The access token's scope may be narrowed,
never widened; the person's current permissions bound it again, and a person who was
disabled or deleted gets ``invalid_grant``. A new ID token (without ``nonce``) is
returned when ``openid`` is in the scope (OIDC Core §12.2). A ``resource`` (RFC 8707
§2.2) narrows the access token to APIs the refresh token's scope reaches, else
``invalid_target`` and the token stays unspent; the successor keeps the whole scope.

One repository call spends the token (``rotate_refresh_token`` of
``idp_common.storage.repos.refresh_tokens``: usually one statement that also reads the
person) and commits it; then :func:`accept_rotation` agrees and the new access token's
``jti`` is tracked in Redis, and if either refuses or fails the repository takes the
rotation back (successor deleted, token un-spent). The browser session the token was
issued in must still stand, and the refresh counts as its activity (:func:`keep_session`).
A reuse lists the grant's access
tokens as revoked before the family's revocation commits. So a Redis failure answers 503
and the client's retry with the same token works (docs/security.md, attack 5;
``token_service.issuance``).
"""

from __future__ import annotations

from typing import ClassVar

from idp_common.protocol.constants import GRANT_TYPE_REFRESH_TOKEN
from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest, InvalidScope
from idp_common.protocol.rfc6749_scope import narrow_scope, parse_scope
from idp_common.storage.repos.clients import ClientRecord
from idp_common.storage.repos.refresh_tokens import (
    RefreshTokenRecord,
    RefreshTokenReused,
    rotate_refresh_token,
)
from token_service.context import GrantDeps
from token_service.dpop import check_refresh_binding
from token_service.forms import TokenRequest
from token_service.issuance import (
    TokenResponse,
    grant_authorization,
    new_access_token_id,
    sign_tokens,
    track_access_token,
)
from token_service.repos.people import PERSON, Person
from token_service.resource_indicators import narrow_authorization, requested_targets


def requested_scopes(requested: list[str], granted: list[str]) -> list[str]:
    """§6: omitted means the original scope; anything beyond it is ``invalid_scope``."""
    if not requested:
        return granted
    extra = [value for value in requested if value not in granted]
    if extra:
        raise InvalidScope("scope exceeds what was originally granted")
    return requested


def accept_rotation(
    old: RefreshTokenRecord, found: Person | None, requested: list[str]
) -> tuple[list[str], Person | None]:
    """What a rotation of ``old`` may grant: the scope (§6) and the person the token
    speaks for (None for a client's own token). Raises ``InvalidScope`` or
    ``InvalidGrant`` (a person deleted or disabled) to refuse it."""
    scopes = requested_scopes(requested, parse_scope(old.scope))
    if old.user_id is None:
        return scopes, None
    if found is None or found.claims.user.disabled:
        raise InvalidGrant("the person is no longer able to sign in")
    return scopes, found


async def keep_session(deps: GrantDeps, old: RefreshTokenRecord) -> None:
    """A person's token stands on the browser session it was issued in: when that ended
    (however: logout, idle expiry, ...), ``invalid_grant``; else the refresh is the
    session's activity, so a session an application keeps refreshing does not idle out."""
    if old.user_id is None or not old.session_sid:
        return
    resources = deps.ctx.resources
    session = await resources.session_standing.live_session(old.session_sid, extend_pointer=True)
    if session is None:
        raise InvalidGrant("the session this refresh token was issued in has ended")
    await resources.browser_sessions.touch(session)


def issued_scopes(scopes: list[str], client: ClientRecord, person: Person | None) -> list[str]:
    """The access token's scope: what was asked for, bounded by what the client and the
    person hold now."""
    return narrow_scope(scopes, client.scopes, person.scopes if person is not None else None)


class RefreshTokenGrant:
    grant_type: ClassVar[str] = GRANT_TYPE_REFRESH_TOKEN
    parameters: ClassVar[frozenset[str]] = frozenset({"refresh_token", "scope", "resource"})
    requires_client_auth: ClassVar[bool] = False

    async def handle(
        self, req: TokenRequest, client: ClientRecord, deps: GrantDeps
    ) -> TokenResponse:
        if not req.refresh_token:
            raise InvalidRequest("refresh_token is required")
        requested = parse_scope(req.scope)
        ident = new_access_token_id(deps)
        targets = await requested_targets(deps, req.resource)  # before the token is spent

        async def accept(
            old: RefreshTokenRecord, found: Person | None
        ) -> tuple[RefreshTokenRecord, list[str], Person | None]:
            check_refresh_binding(old.jkt, deps.dpop_jkt)  # RFC 9449 §5: a public client's key
            scopes, person = accept_rotation(old, found, requested)
            await keep_session(deps, old)
            if targets is not None:  # RFC 8707 §2.2: within what the grant reaches
                targets.select(issued_scopes(scopes, client, person))
            if old.grant_id is not None:
                await track_access_token(deps, old.grant_id, ident)
            return old, scopes, person

        async def on_reuse(reused: RefreshTokenReused) -> None:
            if reused.grant_id is not None:
                await deps.ctx.revocations.revoke_grant(reused.grant_id, now=deps.now)

        (old, scopes, person), successor = await rotate_refresh_token(
            deps.ctx.resources,
            req.refresh_token,
            client_pk=client.pk,
            requested=requested,
            now=deps.now_dt,
            person=PERSON,
            accept=accept,
            on_reuse=on_reuse,
            ip=deps.ip,
        )
        claims = None if person is None or old.user_id is None else person.claims
        if claims is not None and old.user_id is not None:
            deps.ctx.users.put(str(old.user_id), claims)
        auth = await grant_authorization(
            deps,
            client,
            issued_scopes(scopes, client, person),
            old,
            user_id=old.user_id,
            person=claims,
        )
        auth = narrow_authorization(auth, targets, deps.ctx.settings.api_audience)
        return sign_tokens(deps, auth, ident, refresh_token=successor)
