"""RFC 6749 §4.4 "Client Credentials Grant".

    The client can request an access token using only its client credentials [...].
    The client credentials grant type MUST only be used by confidential clients.
    (§4.4.2: scope OPTIONAL; §4.4.3: a refresh token SHOULD NOT be included.)

docs/design.md §2: ``sub`` is the client id. The scope is the requested scopes the client
holds, API scopes only (no ``openid``: there is no person); omitted, it is every API
scope of the client. ``aud`` is the audiences of the APIs of those scopes, and the token
is signed with their algorithm (``token_service.signing``). A request
that ends with no scope is ``invalid_scope``. A ``resource`` (RFC 8707) narrows the scope
and ``aud`` to the named APIs (``token_service.resource_indicators``).
"""

from __future__ import annotations

from typing import ClassVar

from idp_common.protocol.constants import GRANT_TYPE_CLIENT_CREDENTIALS
from idp_common.protocol.rfc6749_errors import InvalidScope, UnauthorizedClient
from idp_common.protocol.rfc6749_scope import is_api_scope, narrow_scope, parse_scope
from idp_common.storage.repos.clients import ClientRecord
from token_service.context import GrantDeps
from token_service.forms import TokenRequest
from token_service.issuance import (
    Authorization,
    TokenResponse,
    new_access_token_id,
    sign_tokens,
)
from token_service.resource_indicators import narrow_authorization, requested_targets


def machine_scopes(requested: list[str], client_scopes: frozenset[str]) -> list[str]:
    """requested ∩ the client's scopes, API scopes only; omitted: all of the client's."""
    granted = narrow_scope(requested, client_scopes, None) if requested else sorted(client_scopes)
    scopes = [value for value in granted if is_api_scope(value)]
    if not scopes:
        raise InvalidScope("none of the requested scopes is available to this client")
    return scopes


class ClientCredentialsGrant:
    grant_type: ClassVar[str] = GRANT_TYPE_CLIENT_CREDENTIALS
    parameters: ClassVar[frozenset[str]] = frozenset({"scope", "resource"})
    requires_client_auth: ClassVar[bool] = True

    async def handle(
        self, req: TokenRequest, client: ClientRecord, deps: GrantDeps
    ) -> TokenResponse:
        if not client.is_confidential:
            raise UnauthorizedClient("client_credentials is for confidential clients")
        scopes = machine_scopes(parse_scope(req.scope), client.scopes)
        targets = await requested_targets(deps, req.resource)
        found = await deps.ctx.audiences_for(scopes)
        if not found.audiences:
            raise InvalidScope("the requested scopes belong to no API")
        auth = Authorization(
            subject=client.client_id,
            client_id=client.client_id,
            scopes=scopes,
            audiences=found.audiences,
            access_token_alg=found.alg,
            id_token_alg=client.id_token_signed_response_alg,
        )
        auth = narrow_authorization(auth, targets, deps.ctx.settings.api_audience)
        return sign_tokens(deps, auth, new_access_token_id(deps))  # no grant: nothing to track
