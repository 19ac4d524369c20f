"""Discovery (OpenID Connect Discovery 1.0 §4, RFC 8414 §3) and the JWKS (RFC 7517 §5).

Both metadata locations serve the same document, built once from ``SVC_ISSUER``.
Cacheable for ``SVC_JWKS_CACHE_SECONDS`` (contract §8: five minutes): a rotated key is
published at least that long before it signs, and a retired one stays published at least
that long after its tokens expired (docs/operations.md "Signing keys"), so a resource
server need not refetch the key set when an unknown ``kid`` appears.

The metadata lists the signing algorithms of the key set held at the moment:
a key generated for a new algorithm appears in both documents once the directory is
re-read.

The JWKS carries an ``ETag`` (RFC 9110 §8.8.3) derived from its bytes, and answers a
matching ``If-None-Match`` with 304: the proxy caches it a few seconds and revalidates
(docs/performance.md "JWKS at the proxy"). Its bytes and tag are made once per key set.
"""

from __future__ import annotations

from typing import Any, cast

import msgspec
from litestar import Controller, Request, Response, Router, get
from litestar.datastructures import CacheControlHeader

from idp_common.config import Settings
from idp_common.crypto.keys import KeySet
from idp_common.web.caller import resources_of
from token_service.protocol.rfc8414_metadata import provider_metadata
from token_service.protocol.rfc9110_conditional import entity_tag, none_match


def discovery_router(settings: Settings) -> Router:
    """The discovery and JWKS routes, ``Cache-Control: public, max-age=<cache lifetime>``."""
    cache = CacheControlHeader(public=True, max_age=settings.jwks_cache_seconds)
    return Router("/", route_handlers=[DiscoveryController], cache_control=cache)


def _metadata(request: Request[Any, Any, Any]) -> dict[str, Any]:
    resources = resources_of(request)
    return provider_metadata(resources.settings.issuer, resources.keys.algorithms)


class DiscoveryController(Controller):
    tags = ["discovery"]

    @get(
        "/.well-known/openid-configuration",
        operation_id="openidConfiguration",
        summary="Provider metadata (OpenID Connect Discovery 1.0 §4)",
    )
    async def openid_configuration(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        return _metadata(request)

    @get(
        "/.well-known/oauth-authorization-server",
        operation_id="oauthAuthorizationServer",
        summary="Provider metadata (RFC 8414 §3): the same document",
    )
    async def oauth_authorization_server(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        return _metadata(request)

    @get("/.well-known/jwks.json", operation_id="jwks", summary="Public signing keys")
    async def jwks(self, request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
        # Annotated as the document it is (the OpenAPI schema); the body is its bytes,
        # encoded once per key set, which Litestar sends as they are.
        resources = resources_of(request)
        body, tag = _published(resources.keys)
        # nginx keeps the answer this long (and never passes the header on).
        headers = {"ETag": tag, "X-Accel-Expires": str(resources.settings.jwks_proxy_seconds)}
        if none_match(request.headers.get("if-none-match"), tag):
            return Response(cast(Any, b""), status_code=304, headers=headers)
        return Response(cast(Any, body), media_type="application/json", headers=headers)


class _Published:
    """The JWKS bytes and tag of the last key set seen (the key ring swaps the whole set
    when a file changes, so identity tells when to make them again)."""

    key_set: KeySet | None = None
    body: bytes = b""
    tag: str = ""


def _published(key_set: KeySet) -> tuple[bytes, str]:
    if _Published.key_set is not key_set:
        body = msgspec.json.encode(key_set.jwks())
        _Published.key_set, _Published.body, _Published.tag = key_set, body, entity_tag(body)
    return _Published.body, _Published.tag
