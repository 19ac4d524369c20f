"""Cross-site posts are refused (docs/design.md "Wire contracts").

A guard on every route of the sign-in API; unsafe methods must:
- carry ``Content-Type: application/json`` (415 otherwise): an HTML form cannot send it,
  and a cross-site ``fetch`` that does needs a CORS preflight this API does not grant;
- when the browser sends ``Origin``, name the issuer's origin or an entry of
  ``SVC_ALLOWED_ADMIN_ORIGINS`` (403 otherwise; ``Origin: null`` is refused too).
Headless clients that send no ``Origin`` are let through: they carry no ambient cookie
of a victim.
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from authui_service.context import context_of
from authui_service.rules import origin_of
from idp_common.config import Settings
from idp_common.errors import PermissionDenied, UnsupportedMediaType

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
JSON = "application/json"


def allowed_origins(settings: Settings) -> frozenset[str]:
    origins = {origin_of(settings.issuer), *(origin_of(o) for o in settings.allowed_admin_origins)}
    return frozenset(o for o in origins if o)


async def same_site_json(
    connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler
) -> None:
    if connection.scope.get("method", "GET") in SAFE_METHODS:
        return
    ctx = context_of(connection)
    origin = connection.headers.get("origin")
    if origin is not None and origin_of(origin) not in ctx.allowed_origins:
        raise PermissionDenied("cross-site request refused", code="auth.cross_site")
    media_type = connection.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != JSON:
        raise UnsupportedMediaType(
            "the body must be JSON (Content-Type: application/json)",
            code="auth.unsupported_media_type",
        )
