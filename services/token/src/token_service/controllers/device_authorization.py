"""``POST /oauth2/device_authorization`` (RFC 8628 §3.1, §3.2).

    The client initiates the authorization flow by requesting a set of verification codes
    from the authorization server by making an HTTP "POST" request to the device
    authorization endpoint. [...] The client authentication requirements of Section 3.2.1
    of [RFC6749] apply to requests on this endpoint.

Order of checks: the per-address limit (``SVC_TOKEN_PER_IP`` a minute, bucket ``device``),
the form (urlencoded, no repeated parameter), client authentication as at the token
endpoint (``none`` for a public client; an assertion's ``aud`` may name this endpoint),
the client's permission to use the device grant (``unauthorized_client``), the scope
narrowed to the client's (none left: ``invalid_scope``). The answer (§3.2) names the
hosted page ``{SVC_AUTH_UI_BASE_URL}/device``; the codes live ``SVC_DEVICE_CODE_TTL``
seconds in Redis (:mod:`idp_common.state.device_authorizations`), polled at most every
``SVC_DEVICE_POLL_INTERVAL`` seconds. Redis down: 503 with ``Retry-After``.
"""

from __future__ import annotations

import time
from typing import Any, Final
from urllib.parse import quote

import msgspec
from litestar import Request, Response

from idp_common.protocol.constants import GRANT_TYPE_DEVICE_CODE
from idp_common.protocol.rfc6749_errors import InvalidScope, UnauthorizedClient
from idp_common.protocol.rfc6749_scope import narrow_scope, parse_scope
from idp_common.protocol.rfc8628_device import (
    DEVICE_AUTHORIZATION_PATH,
    VERIFICATION_PAGE,
    DeviceState,
    format_user_code,
    new_device_code,
    new_user_code,
)
from idp_common.state.address_limits import DEVICE
from idp_common.web.caller import caller_ip
from token_service.client_auth import authenticate_client
from token_service.context import GrantDeps, token_context
from token_service.forms import field_names, read_form, to_struct
from token_service.grants.rfc8628_device_code import device_store
from token_service.limits import enforce_token_limit
from token_service.oauth_errors import (
    OAuthController,
    dependency_unavailable,
    json_response,
    oauth_post,
)
from token_service.openapi_doc import DeviceAuthorizationOperation

#: Draws of a user code before giving up (a collision among live codes is ~1e-6 each).
_DRAWS: Final = 5


class DeviceAuthorizationRequest(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 8628 §3.1, with the client authentication of RFC 6749 §2.3 and RFC 7523 §2.2."""

    client_id: str | None = None
    client_secret: str | None = None
    client_assertion: str | None = None
    client_assertion_type: str | None = None
    scope: str | None = None


class DeviceAuthorizationResponse(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 8628 §3.2."""

    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str
    expires_in: int
    interval: int


_KNOWN: Final = field_names(DeviceAuthorizationRequest)


async def device_authorization_endpoint(request: Request[Any, Any, Any]) -> Response[bytes]:
    deps = GrantDeps(ctx=token_context(request), now=int(time.time()), ip=caller_ip(request))
    settings = deps.ctx.settings
    await enforce_token_limit(deps, DEVICE)
    form = to_struct(await read_form(request, _KNOWN), DeviceAuthorizationRequest)
    client = await authenticate_client(
        deps,
        authorization=request.headers.get("authorization"),
        client_id=form.client_id,
        client_secret=form.client_secret,
        client_assertion=form.client_assertion,
        client_assertion_type=form.client_assertion_type,
        endpoint_url=settings.issuer_base + DEVICE_AUTHORIZATION_PATH,
    )
    if GRANT_TYPE_DEVICE_CODE not in client.grant_types:
        raise UnauthorizedClient(f"the client may not use {GRANT_TYPE_DEVICE_CODE}")
    scopes = narrow_scope(parse_scope(form.scope), client.scopes, None)
    if not scopes:
        raise InvalidScope("none of the requested scopes is available to this client")
    device_code = new_device_code()
    state = await _store_new(deps, device_code, client.client_id, scopes)
    page = settings.auth_ui_url + VERIFICATION_PAGE
    shown = format_user_code(state.user_code)
    return json_response(
        DeviceAuthorizationResponse(
            device_code=device_code,
            user_code=shown,
            verification_uri=page,
            verification_uri_complete=f"{page}?user_code={quote(shown, safe='')}",
            expires_in=settings.device_code_ttl,
            interval=state.interval,
        )
    )


async def _store_new(
    deps: GrantDeps, device_code: str, client_id: str, scopes: list[str]
) -> DeviceState:
    """A new pending authorization under ``device_code``, with a user code no live one has."""
    settings, store = deps.ctx.settings, device_store(deps)
    for _ in range(_DRAWS):
        state = DeviceState(
            client_id=client_id,
            scopes=scopes,
            user_code=new_user_code(),
            expires_at=deps.now + settings.device_code_ttl,
            interval=settings.device_poll_interval,
        )
        if await store.create(device_code, state, deps.now):
            return state
    raise dependency_unavailable()


class DeviceAuthorizationController(OAuthController):
    @oauth_post(
        DEVICE_AUTHORIZATION_PATH,
        "deviceAuthorization",
        "Start a device authorization (RFC 8628 §3.1)",
        DeviceAuthorizationOperation,
    )
    async def device_authorization(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await device_authorization_endpoint(request)
