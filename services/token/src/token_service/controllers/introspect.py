"""``POST /oauth2/introspect`` (RFC 7662).

Spec part 4 and part 7, docs/design.md §2: confidential clients only (a public client, or a
failed authentication, gets 401 ``invalid_client``); a client sees only its own tokens:
another client's, an unknown, a revoked or an expired token is ``{"active": false}``
(200). Access tokens are checked offline plus the Redis revocation list; refresh tokens
by their row.

Limited per caller address like the token endpoint (``SVC_TOKEN_PER_IP`` a minute, a
bucket of its own; ``token_service.limits``), before the form is read.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response

from idp_common.state.address_limits import INTROSPECT
from token_service.introspection import (
    INACTIVE,
    introspect_access_token,
    introspect_refresh_token,
    looks_like_jwt,
)
from token_service.oauth_errors import OAuthController, json_response, oauth_post
from token_service.openapi_doc import IntrospectionOperation
from token_service.protocol.rfc8414_metadata import INTROSPECTION_PATH
from token_service.token_hint import read_token_request


async def introspection_endpoint(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The endpoint, whichever transport carries it (``token_service.lean``)."""
    deps, token, client = await read_token_request(
        request, INTROSPECT, confidential_only=True, endpoint_path=INTROSPECTION_PATH
    )
    if looks_like_jwt(token):
        answer = await introspect_access_token(deps, token, client)
    elif len(token) > 512:
        answer = INACTIVE
    else:
        answer = await introspect_refresh_token(deps, token, client)
    return json_response(answer)


class IntrospectionController(OAuthController):
    @oauth_post(
        INTROSPECTION_PATH,
        "introspect",
        "Inspect a token (RFC 7662), confidential clients only",
        IntrospectionOperation,
    )
    async def introspect(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await introspection_endpoint(request)
