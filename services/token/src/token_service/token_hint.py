"""The request shared by revocation (RFC 7009 §2.1) and introspection (RFC 7662 §2.1):
``token`` and ``token_type_hint`` in a form, from an authenticated client, counted in the
endpoint's per-address limit before the form is read (``token_service.limits``)."""

from __future__ import annotations

import time
from typing import Any, Final

from litestar import Request

from idp_common.protocol.rfc6749_errors import InvalidRequest
from idp_common.state.address_limits import AddressLimit
from idp_common.storage.repos.clients import ClientRecord
from idp_common.web.caller import caller_ip
from token_service.client_auth import authenticate_client
from token_service.context import GrantDeps, token_context
from token_service.cors import note_client
from token_service.forms import TokenHintRequest, field_names, read_form, to_struct
from token_service.limits import enforce_token_limit

_KNOWN: Final = field_names(TokenHintRequest)


async def read_token_request(
    request: Request[Any, Any, Any],
    limit: AddressLimit,
    *,
    confidential_only: bool = False,
    endpoint_path: str | None = None,
) -> tuple[GrantDeps, str, ClientRecord]:
    """Count the request in ``limit``, parse the form once, authenticate the client;
    return the required ``token``. ``endpoint_path``: the endpoint's path, whose URL on
    the issuer a client assertion may name as its ``aud`` (RFC 7523 §3).

    ``token_type_hint`` is accepted and not needed: the token's shape (JWT or opaque)
    decides the lookup."""
    deps = GrantDeps(ctx=token_context(request), now=int(time.time()), ip=caller_ip(request))
    await enforce_token_limit(deps, limit)
    req = to_struct(await read_form(request, _KNOWN), TokenHintRequest)
    note_client(request, req.client_id)  # CORS: the client's origins
    client = await authenticate_client(
        deps,
        authorization=request.headers.get("authorization"),
        client_id=req.client_id,
        client_secret=req.client_secret,
        confidential_only=confidential_only,
        client_assertion=req.client_assertion,
        client_assertion_type=req.client_assertion_type,
        endpoint_url=deps.ctx.settings.issuer_base + endpoint_path if endpoint_path else None,
    )
    note_client(request, client.client_id)
    if not req.token:
        raise InvalidRequest("token is required")
    return deps, req.token, client
