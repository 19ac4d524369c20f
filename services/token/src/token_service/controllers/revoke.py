"""``POST /oauth2/revoke`` (RFC 7009).

The client authenticates (a public client with its ``client_id``, RFC 7009 §2.1). An
access token of this client goes on the Redis revocation list until it expires (spec
part 5: introspection and userinfo see it; offline validation does not). A refresh token
of this client revokes its whole family and the access tokens of its grant (§2.1). The
answer is 200 with an empty body whatever the token was, including an unknown one,
another client's (nothing is changed then, and nothing is revealed) or an invalid one
(§2.2).
"""

from __future__ import annotations

import time
from typing import Any, Final

from litestar import Controller, Request, Response, post

from idp_common.protocol.rfc6749_errors import InvalidRequest
from idp_common.protocol.rfc8414_metadata import REVOCATION_PATH
from idp_common.web.caller import caller_ip
from token_service.client_auth import authenticate_client
from token_service.context import GrantDeps, token_context
from token_service.forms import TokenHintRequest, field_names, read_form, to_struct
from token_service.introspection import looks_like_jwt, revoke_access_token, revoke_refresh_token
from token_service.oauth_errors import NO_STORE, OAUTH_EXCEPTION_HANDLERS

_KNOWN: Final = field_names(TokenHintRequest)


class RevocationController(Controller):
    tags = ["oauth2"]
    exception_handlers = OAUTH_EXCEPTION_HANDLERS

    @post(
        REVOCATION_PATH,
        operation_id="revoke",
        summary="Revoke a token (RFC 7009)",
        status_code=200,
    )
    async def revoke(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        deps = GrantDeps(ctx=token_context(request), now=int(time.time()), ip=caller_ip(request))
        req = to_struct(await read_form(request, _KNOWN), TokenHintRequest)
        client = await authenticate_client(
            deps,
            authorization=request.headers.get("authorization"),
            client_id=req.client_id,
            client_secret=req.client_secret,
        )
        if not req.token:
            raise InvalidRequest("token is required")
        if looks_like_jwt(req.token):
            await revoke_access_token(deps, req.token, client)
        elif len(req.token) <= 512:
            await revoke_refresh_token(deps, req.token, client)
        return Response(content=b"", status_code=200, headers=dict(NO_STORE))
