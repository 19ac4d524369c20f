"""``/api/v1/auth/device/*``: the page where a person approves a device (RFC 8628 §3.3).

    The authorization server [...] prompts the user to input the user code provided by
    the device client. [...] the authorization server should inform the user about the
    action they are undertaking and ask them to approve or deny the request.

- ``POST /device/lookup`` ``{user_code}``: the client's name and the scopes this person
  may give it (their descriptions), for a signed-in browser (``svc_session``; 401
  ``auth.device_signin_required`` otherwise).
- ``POST /device/decision`` ``{user_code, approve}``: records the decision. Approval keeps
  the person's id, the session's ``auth_time``, ``acr``, ``amr`` and ``sid`` and the
  approved scopes (what the person holds of what was asked); the device's next poll gets
  tokens about that person. The session is marked as having reached the client (its
  logout reaches the client too). Audited ``device.approved`` / ``device.denied``.
- ``POST /device/signin`` ``{user_code}``: for a browser that is not signed in, a sign-in
  challenge for the device's client that returns to ``/auth/device?user_code=...`` when
  done (``Challenge.return_to``); answers ``{redirectTo}`` (the sign-in page).

Guessing (§5.1): every call is limited per address (bucket ``device``,
``SVC_TOKEN_PER_IP`` a minute); each user code entered is counted against the address
before it is judged and given back when it named a live code, so an address may enter
``SVC_USER_CODE_FAILURES_PER_IP`` wrong codes an hour (then 429 ``auth.device_rate_limited``
with ``Retry-After``); one user code may be entered :data:`USER_CODE_ATTEMPTS` times in
its lifetime. A code that is unknown, expired or already decided is 404
``auth.device_code_invalid``, alike for all three. The routes are JSON-only and refuse
cross-site ``Origin`` (``authui_service.csrf``).
"""

from __future__ import annotations

import time
import uuid
from typing import Annotated, Any, Final, Literal
from urllib.parse import quote

import msgspec
from litestar import Controller, Request, post
from litestar.params import JSONBody
from msgspec import Meta

from authui_service import flow
from authui_service.context import SigninContext, context_of
from authui_service.schemas import ClientInfo, ScopeInfo, StepAnswer
from idp_common.errors import Conflict, NotFound, RateLimited, Unauthenticated
from idp_common.protocol.caller_address import rate_limit_address
from idp_common.protocol.constants import OIDC_SCOPE_DESCRIPTIONS
from idp_common.protocol.rfc6749_scope import narrow_scope
from idp_common.protocol.rfc8628_device import (
    VERIFICATION_PAGE,
    DeviceApproval,
    DeviceState,
    format_user_code,
    normalise_user_code,
)
from idp_common.state.address_limits import CHALLENGE, DEVICE, HOUR
from idp_common.state.challenge_quota import ChallengeQuota
from idp_common.state.challenges import Challenge
from idp_common.state.device_authorizations import DeviceAuthorizations
from idp_common.state.sessions import BrowserSession
from idp_common.storage.repos.audit import AuditEntry
from idp_common.storage.repos.clients import ClientRecord, get_client, scope_descriptions
from idp_common.storage.repos.users import effective_scopes
from idp_common.web.caller import caller_ip

AnyRequest = Request[Any, Any, Any]
#: Times one user code may be entered (looked up, decided or signed in with).
USER_CODE_ATTEMPTS: Final = 10
UserCodeText = Annotated[str, Meta(min_length=1, max_length=64)]


class DeviceCodeBody(msgspec.Struct, frozen=True):
    user_code: UserCodeText


class DeviceDecisionBody(msgspec.Struct, frozen=True):
    user_code: UserCodeText
    approve: bool


class DeviceRead(msgspec.Struct, frozen=True):
    """What the page shows before the person decides."""

    user_code: str
    client: ClientInfo
    scopes: list[ScopeInfo]


class DeviceDecided(msgspec.Struct, frozen=True):
    status: Literal["approved", "denied"]


def _invalid() -> NotFound:
    return NotFound(
        "this code is not valid: it may have expired or been used already",
        code="auth.device_code_invalid",
    )


class DeviceController(Controller):
    path = "/api/v1/auth/device"
    tags = ["device"]

    @post("/lookup", operation_id="lookupDeviceCode", status_code=200)
    async def lookup(self, request: AnyRequest, data: JSONBody[DeviceCodeBody]) -> DeviceRead:
        """The device's client and the scopes it asks for (what this person may give)."""
        ctx = context_of(request)
        session = await _signed_in(ctx, request)
        code, state = await _live_code(ctx, request, data.user_code)
        client = await _client(ctx, state)
        granted = await _grantable(ctx, session, state, client)
        async with ctx.resources.sessions() as db:
            known = await scope_descriptions(db, granted)
        scopes = [
            ScopeInfo(value, known.get(value) or OIDC_SCOPE_DESCRIPTIONS.get(value) or value)
            for value in granted
        ]
        client_info = ClientInfo(client.client_id, client.name)
        return DeviceRead(format_user_code(code), client_info, scopes)

    @post("/decision", operation_id="decideDeviceCode", status_code=200)
    async def decision(
        self, request: AnyRequest, data: JSONBody[DeviceDecisionBody]
    ) -> DeviceDecided:
        """Approve or deny the device's request (final)."""
        ctx = context_of(request)
        session = await _signed_in(ctx, request)
        code, state = await _live_code(ctx, request, data.user_code)
        client = await _client(ctx, state)
        granted = await _grantable(ctx, session, state, client)
        approval = None
        if data.approve:
            if not granted:
                raise Conflict(
                    "you hold none of the permissions this device asks for",
                    code="auth.device_nothing_to_grant",
                )
            approval = DeviceApproval(
                user_id=session.user_id,
                scopes=granted,
                auth_time=session.auth_time,
                acr=session.acr,
                amr=list(session.amr),
                sid=session.sid,
            )
        if await _store(ctx).decide(code, int(time.time()), approval) is None:
            raise _invalid()  # decided or expired meanwhile
        if approval is not None:
            await ctx.store.touch(session, client_id=client.client_id)
        entry = AuditEntry(
            action="device.approved" if approval else "device.denied",
            status_code=200,
            actor=session.user_id,
            target_type="client",
            target=client.client_id,
            detail={"scopes": granted if approval else list(state.scopes), "sid": session.sid},
        )
        await flow.audit(ctx, request, entry)
        return DeviceDecided("approved" if approval else "denied")

    @post("/signin", operation_id="signInForDeviceCode", status_code=200)
    async def signin(self, request: AnyRequest, data: JSONBody[DeviceCodeBody]) -> StepAnswer:
        """Sign in first: a sign-in for the device's client that comes back to this page."""
        ctx = context_of(request)
        code, state = await _live_code(ctx, request, data.user_code)
        ip = caller_ip(request)
        limit = await CHALLENGE.hit(ctx.resources.limiter, ctx.settings, ip)
        if not limit.allowed:
            raise RateLimited("too many sign-in requests", retry_after=limit.retry_after)
        back = f"{ctx.settings.auth_ui_url}{VERIFICATION_PAGE}?user_code="
        challenge = Challenge(
            id="",
            client_id=state.client_id,
            redirect_uri="",
            scopes=[],
            return_to=back + quote(format_user_code(code), safe=""),
        )
        await ctx.store.save_challenge(challenge)
        quota = ChallengeQuota(ctx.resources.redis, ctx.settings.redis_prefix)
        await quota.record(rate_limit_address(ip), challenge.id)
        page = f"{ctx.settings.auth_ui_url}/login?challenge={quote(challenge.id, safe='')}"
        return StepAnswer(next="password", redirect_to=page)


def _store(ctx: SigninContext) -> DeviceAuthorizations:
    return DeviceAuthorizations(ctx.resources.redis, ctx.settings.redis_prefix)


async def _signed_in(ctx: SigninContext, request: AnyRequest) -> BrowserSession:
    session = await ctx.store.get_session(request.cookies.get(ctx.settings.session_cookie_name))
    if session is None:
        raise Unauthenticated("sign in to continue", code="auth.device_signin_required")
    return session


async def _live_code(
    ctx: SigninContext, request: AnyRequest, typed: str
) -> tuple[str, DeviceState]:
    """The normalised code and its pending authorization, within the limits (see the
    module); 404 for a code that names none, counted against the address."""
    ip = caller_ip(request)
    limiter, settings = ctx.resources.limiter, ctx.settings
    per_address = await DEVICE.hit(limiter, settings, ip)
    if not per_address.allowed:
        raise RateLimited(
            "too many requests from this address", retry_after=per_address.retry_after
        )
    store = _store(ctx)
    wait = await store.attempt_user_code(ip, settings.user_code_failures_per_ip, HOUR)
    if wait:
        raise RateLimited(
            "too many wrong codes from this address",
            retry_after=wait,
            code="auth.device_rate_limited",
        )
    code = normalise_user_code(typed)
    if code is None:
        raise _invalid()
    per_code = await limiter.hit(
        "user_code", code, limit=USER_CODE_ATTEMPTS, window_seconds=settings.device_code_ttl
    )
    if not per_code.allowed:
        raise RateLimited(
            "this code was entered too often",
            retry_after=per_code.retry_after,
            code="auth.device_rate_limited",
        )
    state = await store.find_by_user_code(code)
    if state is None or state.status != "pending" or state.expires_at <= int(time.time()):
        raise _invalid()
    await store.right_user_code(ip)
    return code, state


async def _client(ctx: SigninContext, state: DeviceState) -> ClientRecord:
    async with ctx.resources.sessions() as db:
        client = await get_client(db, state.client_id)
    if client is None or client.disabled:  # deleted or disabled since the device asked
        raise _invalid()
    return client


async def _grantable(
    ctx: SigninContext, session: BrowserSession, state: DeviceState, client: ClientRecord
) -> list[str]:
    """What was asked that the client may still have and this person may give."""
    async with ctx.resources.sessions() as db:
        held = await effective_scopes(db, uuid.UUID(session.user_id))
    return narrow_scope(state.scopes, client.scopes, held)
