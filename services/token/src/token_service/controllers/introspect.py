"""``POST /oauth2/introspect`` (RFC 7662).

Spec part 4 and part 7, DESIGN.md §2: confidential clients only (a public client, or a
failed authentication, gets 401 ``invalid_client``); a client sees only its own tokens:
another client's, an unknown, a revoked or an expired token is ``{"active": false}``
(200). Access tokens are checked offline plus the Redis revocation list; refresh tokens
by their row.
"""

from __future__ import annotations

import time
from typing import Any, Final

from litestar import Controller, Request, Response, post

from idp_common.protocol.constants import TOKEN_TYPE_HINT_REFRESH_TOKEN
from idp_common.protocol.rfc6749_errors import InvalidRequest
from idp_common.protocol.rfc8414_metadata import INTROSPECTION_PATH
from idp_common.web.caller import caller_ip
from token_service.client_auth import authenticate_client
from token_service.context import GrantDeps, token_context
from token_service.forms import TokenHintRequest, field_names, read_form, to_struct
from token_service.introspection import (
    INACTIVE,
    introspect_access_token,
    introspect_refresh_token,
    looks_like_jwt,
)
from token_service.oauth_errors import OAUTH_EXCEPTION_HANDLERS, json_response

_KNOWN: Final = field_names(TokenHintRequest)


class IntrospectionController(Controller):
    tags = ["oauth2"]
    exception_handlers = OAUTH_EXCEPTION_HANDLERS

    @post(
        INTROSPECTION_PATH,
        operation_id="introspect",
        summary="Inspect a token (RFC 7662), confidential clients only",
        status_code=200,
    )
    async def introspect(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        deps = GrantDeps(ctx=token_context(request), now=int(time.time()), ip=caller_ip(request))
        req = to_struct(await read_form(request, _KNOWN), TokenHintRequest)
        client = await authenticate_client(
            deps,
            authorization=request.headers.get("authorization"),
            client_id=req.client_id,
            client_secret=req.client_secret,
            confidential_only=True,
        )
        if not req.token:
            raise InvalidRequest("token is required")
        if looks_like_jwt(req.token):
            answer = await introspect_access_token(deps, req.token, client)
        elif len(req.token) > 512:
            answer = INACTIVE
        else:
            answer = await introspect_refresh_token(deps, req.token, client)
        if req.token_type_hint == TOKEN_TYPE_HINT_REFRESH_TOKEN and answer is INACTIVE:
            answer = INACTIVE  # a hint never widens the search beyond the token's shape
        return json_response(answer)
