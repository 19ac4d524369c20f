"""Discovery (OpenID Connect Discovery 1.0 §4, RFC 8414 §3) and the JWKS (RFC 7517 §5).

Both metadata locations serve the same document, built once from ``SVC_ISSUER``.
Cacheable for five minutes: resource servers refetch the key set when an unknown
``kid`` appears (spec §5), and keys outlive a rotation by at least that long.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get
from litestar.datastructures import CacheControlHeader

from idp_common.protocol.rfc8414_metadata import provider_metadata
from idp_common.web.caller import resources_of

PUBLIC_5_MIN = CacheControlHeader(public=True, max_age=300)


class DiscoveryController(Controller):
    tags = ["discovery"]
    cache_control = PUBLIC_5_MIN

    @get(
        "/.well-known/openid-configuration",
        operation_id="openidConfiguration",
        summary="Provider metadata (OpenID Connect Discovery 1.0 §4)",
    )
    async def openid_configuration(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        return provider_metadata(resources_of(request).settings.issuer)

    @get(
        "/.well-known/oauth-authorization-server",
        operation_id="oauthAuthorizationServer",
        summary="Provider metadata (RFC 8414 §3): the same document",
    )
    async def oauth_authorization_server(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        return provider_metadata(resources_of(request).settings.issuer)

    @get("/.well-known/jwks.json", operation_id="jwks", summary="Public signing keys")
    async def jwks(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        return resources_of(request).keys.jwks()
