"""The validation of an authorization request for one client, shared by
``/oauth2/authorize`` and ``/oauth2/par`` (RFC 9126 §2.1: a pushed request is validated as
the authorization endpoint would validate it).

Two stages, as in :mod:`idp_common.protocol.oidc_authorize`, because where an error goes
depends on it:

1. :func:`trusted_redirect_uri`: the ``redirect_uri`` is one the client registered
   (``UntrustedRequest``: authorize shows a page, PAR answers ``invalid_request``).
2. :func:`client_request`: the client may use the code flow, pushed the request when it
   must (RFC 9126 §5, FAPI 2.0), and every other parameter holds, with PKCE required of
   public and FAPI 2.0 clients (``OAuth2Error``: authorize redirects it to the client, PAR
   answers it as JSON).
"""

from __future__ import annotations

from collections.abc import Mapping

from idp_common.protocol.constants import GRANT_TYPE_AUTHORIZATION_CODE
from idp_common.protocol.oidc_authorize import (
    AuthorizationRequest,
    match_redirect_uri,
    parse_request,
)
from idp_common.protocol.rfc6749_errors import InvalidRequest, UnauthorizedClient
from idp_common.protocol.rfc9126_par import must_push
from idp_common.storage.repos.clients import ClientRecord
from token_service.protocol.fapi2_security_profile import pkce_required

__all__ = ["client_request", "trusted_redirect_uri"]


def trusted_redirect_uri(client: ClientRecord, values: Mapping[str, str]) -> str:
    """Stage 1: the request's ``redirect_uri``, registered for ``client`` exactly."""
    return match_redirect_uri(client.redirect_uris, values.get("redirect_uri"))


def client_request(
    client: ClientRecord, values: Mapping[str, str], redirect_uri: str, *, pushed: bool
) -> AuthorizationRequest:
    """Stage 2: the validated request; ``pushed`` when it came through ``/oauth2/par``."""
    if GRANT_TYPE_AUTHORIZATION_CODE not in client.grant_types:
        raise UnauthorizedClient("the client may not use the code flow")
    if not pushed and must_push(
        required_by_client=client.require_pushed_authorization_requests, fapi2=client.is_fapi2
    ):
        raise InvalidRequest("this client must push its authorization requests (RFC 9126)")
    public = not client.is_confidential
    return parse_request(
        values,
        client_id=client.client_id,
        redirect_uri=redirect_uri,
        public_client=public,
        pkce_required=pkce_required(public_client=public, fapi2=client.is_fapi2),
    )
