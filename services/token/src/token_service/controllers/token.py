"""``POST /oauth2/token`` (RFC 6749 §3.2, §5).

Order of checks: the per-address limit, the form (urlencoded only, no repeated
parameter but ``resource`` and ``audience``), ``grant_type`` present and supported,
client authentication, the client's permission to use the grant, the DPoP proof (RFC
9449, ``token_service.dpop``), then the grant itself (``token_service.grants``). Success
is the RFC 6749 §5.1 body, errors the §5.2 object; both ``no-store``.
"""

from __future__ import annotations

import time
from typing import Any, Final

from litestar import Request, Response

from idp_common.observability.metrics import count_token_issued
from idp_common.protocol.rfc6749_errors import (
    InvalidClient,
    InvalidRequest,
    UnauthorizedClient,
    UnsupportedGrantType,
)
from idp_common.web.caller import caller_ip
from token_service.client_auth import authenticate_client
from token_service.context import GrantDeps, token_context
from token_service.cors import note_client
from token_service.dpop import bind_dpop, with_nonce
from token_service.forms import (
    CLIENT_AUTH_FIELDS,
    REPEATABLE,
    TokenRequest,
    field_names,
    read_form_lists,
    to_struct,
)
from token_service.grants import GRANTS
from token_service.limits import enforce_token_limit
from token_service.oauth_errors import OAuthController, json_response, oauth_post
from token_service.openapi_doc import TokenOperation
from token_service.protocol.rfc8414_metadata import TOKEN_PATH

_KNOWN: Final = field_names(TokenRequest)


async def token_endpoint(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The endpoint, whichever transport carries it (``token_service.lean``)."""
    deps = GrantDeps(ctx=token_context(request), now=int(time.time()), ip=caller_ip(request))
    await enforce_token_limit(deps)
    form, lists = await read_form_lists(request, _KNOWN, REPEATABLE)
    note_client(request, form.get("client_id"))  # CORS: the client's origins
    grant_type = form.get("grant_type")
    if grant_type is None:
        raise InvalidRequest("grant_type is required")
    client = await authenticate_client(
        deps,
        authorization=request.headers.get("authorization"),
        client_id=form.get("client_id"),
        client_secret=form.get("client_secret"),
        client_assertion=form.get("client_assertion"),
        client_assertion_type=form.get("client_assertion_type"),
    )
    note_client(request, client.client_id)
    grant = GRANTS.get(grant_type)
    if grant is None:
        raise UnsupportedGrantType(f"grant_type {grant_type} is not supported")
    if grant.requires_client_auth and not client.is_confidential:
        raise InvalidClient("this grant needs an authenticated confidential client")
    if grant_type not in client.grant_types:
        raise UnauthorizedClient(f"the client may not use {grant_type}")
    deps = await bind_dpop(request, deps, client)
    allowed = grant.parameters | CLIENT_AUTH_FIELDS | {"grant_type"}
    req = to_struct({**form, **lists}, TokenRequest, allowed)
    response = await grant.handle(req, client, deps)
    count_token_issued(grant_type, confidential=client.is_confidential)
    deps.ctx.issued.add(grant_type, client.client_id)  # memory only; written in the background
    return with_nonce(json_response(response), deps)


class TokenController(OAuthController):
    @oauth_post(TOKEN_PATH, "token", "Exchange a grant for tokens (RFC 6749 §3.2)", TokenOperation)
    async def token(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await token_endpoint(request)
