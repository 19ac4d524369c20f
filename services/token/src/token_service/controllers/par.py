"""``POST /oauth2/par``: Pushed Authorization Requests (RFC 9126 §2).

Order of checks, as at the token endpoint: the per-address limit (``SVC_TOKEN_PER_IP`` a
minute, a bucket of its own), the form (urlencoded only, no repeated parameter), client
authentication (``token_service.client_auth``, every method the token endpoint accepts).
Then the authorization request is validated as ``/oauth2/authorize`` validates it
(``token_service.authorization_request``; a ``redirect_uri`` is required and must be
registered; ``resource`` values, which may repeat, as RFC 8707 rules them: an unknown one
is ``invalid_target``), a ``request_uri`` in it is ``invalid_request`` (§2.1), and it is
kept in Redis for ``SVC_PAR_REQUEST_TTL`` seconds, bound to the client
(``token_service.state.pushed_requests``). The answer is 201 with ``request_uri`` and
``expires_in`` (§2.2); errors are RFC 6749 §5.2 objects (§2.3), all ``no-store``.
"""

from __future__ import annotations

import time
from typing import Any, Final

from litestar import Request, Response, post

from idp_common.protocol.oidc_authorize import UntrustedRequest
from idp_common.protocol.rfc6749_errors import InvalidRequest
from idp_common.protocol.rfc9126_par import (
    PAR_PATH,
    PUSHABLE_PARAMETERS,
    PushedRequest,
    pushed_parameters,
)
from idp_common.state.address_limits import PAR
from idp_common.web.caller import caller_ip
from token_service.authorization_request import client_request, trusted_redirect_uri
from token_service.client_auth import authenticate_client
from token_service.context import GrantDeps, token_context
from token_service.forms import CLIENT_AUTH_FIELDS, read_form_lists
from token_service.limits import enforce_token_limit
from token_service.oauth_errors import OAuthController, json_response
from token_service.openapi_doc import PushedAuthorizationOperation
from token_service.protocol.rfc8707_resource import RESOURCE
from token_service.resource_indicators import narrow_request
from token_service.state.pushed_requests import PushedRequests

#: RFC 7523 §2.2 client assertion fields, read beside the secret's (private_key_jwt).
ASSERTION_FIELDS: Final = frozenset({"client_assertion", "client_assertion_type"})
_KNOWN: Final = frozenset(
    {*PUSHABLE_PARAMETERS, *CLIENT_AUTH_FIELDS, *ASSERTION_FIELDS, "request_uri", RESOURCE}
)


async def par_endpoint(request: Request[Any, Any, Any]) -> Response[bytes]:
    """Validate and keep one authorization request; answer its ``request_uri``."""
    ctx = token_context(request)
    deps = GrantDeps(ctx=ctx, now=int(time.time()), ip=caller_ip(request))
    await enforce_token_limit(deps, PAR)
    form, lists = await read_form_lists(request, _KNOWN, frozenset({RESOURCE}))
    client = await authenticate_client(
        deps,
        authorization=request.headers.get("authorization"),
        client_id=form.get("client_id"),
        client_secret=form.get("client_secret"),
        client_assertion=form.get("client_assertion"),
        client_assertion_type=form.get("client_assertion_type"),
        endpoint_url=ctx.settings.issuer_base + PAR_PATH,
    )
    values = pushed_parameters(form)
    values["client_id"] = client.client_id
    try:
        redirect_uri = trusted_redirect_uri(client, values)
    except UntrustedRequest as exc:
        raise InvalidRequest(exc.description) from exc
    req = client_request(client, values, redirect_uri, pushed=True)
    targets = lists.get(RESOURCE, [])
    await narrow_request(ctx, client, req, targets)  # RFC 8707: invalid_target now
    stored = PushedRequest(client_id=client.client_id, parameters=values, resources=targets)
    lifetime = ctx.settings.par_request_ttl
    store = PushedRequests(ctx.resources.redis, ctx.settings.redis_prefix)
    request_uri = await store.push(stored, lifetime)
    return json_response({"request_uri": request_uri, "expires_in": lifetime}, status_code=201)


class PushedAuthorizationController(OAuthController):
    @post(
        PAR_PATH,
        operation_id="pushedAuthorizationRequest",
        summary="Push an authorization request (RFC 9126 §2)",
        status_code=201,
        operation_class=PushedAuthorizationOperation,
    )
    async def par(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return await par_endpoint(request)
