"""The grants of ``POST /oauth2/token``, one module per grant (docs/style.md §3).

Why it exists: each grant of RFC 6749 is a separate rule set; the controller only parses
the request, authenticates the client and dispatches here by ``grant_type``.

- ``rfc6749_authorization_code``: RFC 6749 §4.1.3 with PKCE (RFC 7636) and OIDC Core
  §3.1.3 ID tokens;
- ``rfc6749_refresh_token``: RFC 6749 §6 with rotation and reuse detection (RFC 9700
  §4.14.2);
- ``rfc6749_client_credentials``: RFC 6749 §4.4;
- ``rfc8693_token_exchange``: RFC 8693 §2;
- ``rfc8628_device_code``: RFC 8628 §3.4, §3.5.
"""

from __future__ import annotations

from typing import ClassVar, Final, Protocol

from idp_common.storage.repos.clients import ClientRecord
from token_service.context import GrantDeps
from token_service.forms import TokenRequest
from token_service.grants.rfc6749_authorization_code import AuthorizationCodeGrant
from token_service.grants.rfc6749_client_credentials import ClientCredentialsGrant
from token_service.grants.rfc6749_refresh_token import RefreshTokenGrant
from token_service.grants.rfc8628_device_code import DeviceCodeGrant
from token_service.grants.rfc8693_token_exchange import TokenExchangeGrant
from token_service.issuance import TokenResponse


class Grant(Protocol):
    """What every grant provides."""

    grant_type: ClassVar[str]
    #: The request parameters this grant reads besides ``grant_type`` and client auth.
    parameters: ClassVar[frozenset[str]]
    #: True: only an authenticated confidential client may use it.
    requires_client_auth: ClassVar[bool]

    async def handle(
        self, req: TokenRequest, client: ClientRecord, deps: GrantDeps
    ) -> TokenResponse: ...


GRANTS: Final[dict[str, Grant]] = {
    grant.grant_type: grant
    for grant in (
        AuthorizationCodeGrant(),
        RefreshTokenGrant(),
        ClientCredentialsGrant(),
        TokenExchangeGrant(),
        DeviceCodeGrant(),
    )
}

__all__ = ["GRANTS", "Grant"]
