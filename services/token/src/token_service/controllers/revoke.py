"""``POST /oauth2/revoke`` (RFC 7009).

The client authenticates (a public client with its ``client_id``, RFC 7009 §2.1). An
access token of this client goes on the Redis revocation list until it expires (spec
part 5: introspection and userinfo see it; offline validation does not). A refresh token
of this client revokes its whole family and the access tokens of its grant (§2.1). The
answer is 200 with an empty body whatever the token was, including an unknown one,
another client's (nothing is changed then, and nothing is revealed) or an invalid one
(§2.2).

Limited per caller address like the token endpoint (``SVC_TOKEN_PER_IP`` a minute, a
bucket of its own; ``token_service.limits``), before the form is read.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response

from idp_common.state.address_limits import REVOKE
from token_service.introspection import looks_like_jwt, revoke_access_token, revoke_refresh_token
from token_service.oauth_errors import NO_STORE, OAuthController, oauth_post
from token_service.openapi_doc import RevocationOperation
from token_service.protocol.rfc8414_metadata import REVOCATION_PATH
from token_service.token_hint import read_token_request


class RevocationController(OAuthController):
    @oauth_post(REVOCATION_PATH, "revoke", "Revoke a token (RFC 7009)", RevocationOperation)
    async def revoke(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        deps, token, client = await read_token_request(
            request, REVOKE, endpoint_path=REVOCATION_PATH
        )
        if looks_like_jwt(token):
            await revoke_access_token(deps, token, client)
        elif len(token) <= 512:
            await revoke_refresh_token(deps, token, client)
        return Response(content=b"", status_code=200, headers=dict(NO_STORE))
