"""RFC 8628 §3.4 "Device Access Token Request" and §3.5 "Device Access Token Response".

    After displaying instructions to the user, the client creates an access token request
    to the token endpoint [...] with ``grant_type`` "urn:ietf:params:oauth:grant-type:
    device_code" [and] ``device_code`` [...]. The client authentication requirements of
    Section 3.2.1 of [RFC6749] apply to requests on this endpoint.

§3.5: until the person decides, ``authorization_pending``; a poll sooner than
``interval`` after the previous one, ``slow_down`` (and the interval grows by 5 s);
``access_denied`` once they refused; ``expired_token`` after the code's lifetime. The
rules are :func:`idp_common.protocol.rfc8628_device.poll`; the state and its atomic
redemption are :class:`idp_common.state.device_authorizations.DeviceAuthorizations`.

An approved code is redeemed once: the poll that finds it approved deletes it in the same
Redis transaction, so a second presentation is ``invalid_grant``. The tokens are those the
code grant issues (``rfc6749_authorization_code``): about the person who approved, with
the approving browser session's ``auth_time``, ``acr``, ``amr`` and ``sid``; an ID token
when ``openid`` was approved; a refresh token when ``offline_access`` was and the client
may refresh (:func:`~token_service.grants.rfc6749_authorization_code.refresh_scope`). The
scope is narrowed again to what the client and the person hold now. A person disabled, or
a session that ended, since the approval gets ``invalid_grant`` (audited). When the refresh
token or the access token's tracking fails (PostgreSQL or Redis down: 503), both are taken
back and the approval is put back, so the device's next poll succeeds.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import ClassVar, Final

from idp_common.protocol.constants import GRANT_TYPE_DEVICE_CODE
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest
from idp_common.protocol.rfc6749_scope import narrow_scope
from idp_common.protocol.rfc8628_device import DeviceApproval, DeviceState
from idp_common.state.device_authorizations import DeviceAuthorizations
from idp_common.storage.repos.audit import AuditEntry, record_audit
from idp_common.storage.repos.clients import ClientRecord
from idp_common.storage.repos.refresh_tokens import (
    issue_refresh_token,
    take_back_first_refresh_token,
)
from token_service.context import GrantDeps
from token_service.dpop import refresh_jkt
from token_service.forms import TokenRequest
from token_service.grants.rfc6749_authorization_code import AUDIT_GRANT_FAILED, refresh_scope
from token_service.issuance import (
    AccessTokenId,
    TokenResponse,
    grant_authorization,
    new_access_token_id,
    sign_tokens,
    track_access_token,
)
from token_service.repos.people import Person, load_person
from token_service.resource_indicators import narrow_authorization, requested_targets

log = logging.getLogger("idp.device")
#: A redemption taken back (a dependency failed) may be polled again for this long.
_PUT_BACK_SECONDS: Final = 60


@dataclass(frozen=True)
class DeviceOrigin:
    """How the person who approved had signed in (``issuance.GrantOrigin``)."""

    grant_id: uuid.UUID
    auth_time: datetime
    acr: str | None
    amr: list[str] = field(default_factory=list)
    session_sid: str | None = None

    @classmethod
    def of(cls, approval: DeviceApproval) -> DeviceOrigin:
        moment = datetime.fromtimestamp(approval.auth_time, UTC)
        return cls(uuid.uuid4(), moment, approval.acr or None, list(approval.amr), approval.sid)


def device_store(deps: GrantDeps) -> DeviceAuthorizations:
    resources = deps.ctx.resources
    return DeviceAuthorizations(resources.redis, resources.settings.redis_prefix)


def approved_scopes(approval: DeviceApproval, client: ClientRecord, person: Person) -> list[str]:
    """Pure: what the tokens carry; raises ``InvalidGrant`` when nothing is left."""
    if person.claims.user.disabled:
        raise InvalidGrant("the person is no longer able to sign in")
    scopes = narrow_scope(approval.scopes, client.scopes, person.scopes)
    if not scopes:
        raise InvalidGrant("none of the approved scopes may be granted any more")
    return scopes


class DeviceCodeGrant:
    grant_type: ClassVar[str] = GRANT_TYPE_DEVICE_CODE
    parameters: ClassVar[frozenset[str]] = frozenset({"device_code", "resource"})
    requires_client_auth: ClassVar[bool] = False

    async def handle(
        self, req: TokenRequest, client: ClientRecord, deps: GrantDeps
    ) -> TokenResponse:
        device_code = req.device_code
        if not device_code:
            raise InvalidRequest("device_code is required")
        targets = await requested_targets(deps, req.resource)  # RFC 8707, before the spend
        store = device_store(deps)
        outcome = await store.poll(device_code, client.client_id, int(time.time() * 1000))
        if outcome.error is not None or outcome.approval is None:
            raise outcome.error or InvalidGrant("the device code is invalid")
        approval = outcome.approval
        origin = DeviceOrigin.of(approval)
        person = await _approver(deps, client, device_code, approval, origin)
        scopes = approved_scopes(approval, client, person)
        ident = new_access_token_id(deps)
        user_id = uuid.UUID(approval.user_id)
        put_back = _put_back(deps, store, device_code, client, approval)
        refresh = await _spend(deps, client, scopes, origin, ident, user_id, put_back)
        deps.ctx.users.put(str(user_id), person.claims)
        auth = await grant_authorization(
            deps, client, scopes, origin, user_id=user_id, person=person.claims
        )
        auth = narrow_authorization(auth, targets, deps.ctx.settings.api_audience)
        return sign_tokens(deps, auth, ident, refresh_token=refresh)


def _put_back(
    deps: GrantDeps,
    store: DeviceAuthorizations,
    device_code: str,
    client: ClientRecord,
    approval: DeviceApproval,
) -> Callable[[], Awaitable[None]]:
    """How to undo the redemption: the approval back in Redis for a short while."""
    redeemed = DeviceState(
        client_id=client.client_id,
        scopes=approval.scopes,
        user_code="",
        expires_at=deps.now + _PUT_BACK_SECONDS,
        interval=deps.ctx.settings.device_poll_interval,
        status="approved",
        approval=approval,
    )

    async def put_back() -> None:
        await store.restore(device_code, redeemed, deps.now)

    return put_back


async def _approver(
    deps: GrantDeps,
    client: ClientRecord,
    device_code: str,
    approval: DeviceApproval,
    origin: DeviceOrigin,
) -> Person:
    """The person who approved, able to sign in, in a session that still lives; else the
    redemption is refused (audited; the code stays spent)."""
    async with deps.ctx.resources.hot.connection() as conn:
        person = await load_person(conn, uuid.UUID(approval.user_id))
    reason: str | None = None
    if person is None or person.claims.user.disabled:
        reason = "the person is no longer able to sign in"
    elif await deps.ctx.resources.browser_sessions.get_session_by_sid(approval.sid) is None:
        reason = "the browser session that approved the request has ended"
    if reason is None and person is not None:
        return person
    refusal = InvalidGrant(reason)
    entry = AuditEntry(
        action=AUDIT_GRANT_FAILED,
        status_code=400,
        ip=deps.ip,
        actor=client.client_id,
        target_type="grant",
        target=str(origin.grant_id),
        detail={
            "grant_type": GRANT_TYPE_DEVICE_CODE,
            "reason": refusal.description,
            "device_code_digest_prefix": digest(device_code).hex()[:12],
        },
    )
    await record_audit(deps.ctx.resources.sessions, entry)
    raise refusal


async def _spend(
    deps: GrantDeps,
    client: ClientRecord,
    scopes: list[str],
    origin: DeviceOrigin,
    ident: AccessTokenId,
    user_id: uuid.UUID,
    put_back: Callable[[], Awaitable[None]],
) -> str | None:
    """The grant's first refresh token (or None) and the access token tracked under the
    grant; when either fails, both are taken back and the approval is put back."""
    scope = refresh_scope(scopes, client)
    try:
        refresh = None
        if scope is not None:
            async with deps.ctx.resources.hot.connection() as conn:
                refresh = await issue_refresh_token(
                    conn,
                    family_id=uuid.uuid4(),
                    grant_id=origin.grant_id,
                    parent_id=None,
                    client_pk=client.pk,
                    user_id=user_id,
                    scope=scope,
                    session_sid=origin.session_sid,
                    auth_time=origin.auth_time,
                    acr=origin.acr,
                    amr=origin.amr,
                    now=deps.now_dt,
                    jkt=refresh_jkt(client, deps.dpop_jkt),
                )
        await track_access_token(deps, origin.grant_id, ident)
    except BaseException:
        try:
            if refresh is not None:
                async with deps.ctx.resources.hot.transaction() as conn:
                    await take_back_first_refresh_token(conn, origin.grant_id)
            await put_back()
        except Exception as exc:  # the first failure is what the client hears about
            log.warning("device grant not taken back (%s)", type(exc).__name__)
        raise
    return refresh
