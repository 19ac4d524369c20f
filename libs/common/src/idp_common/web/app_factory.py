"""``create_service_app``: the one place a service's Litestar app is wired.

Every service gets the same security headers, error mapping, health routes, CORS policy
and OpenAPI description (withheld in production, contract §9 rule 4), so the services differ
only in their route handlers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol, cast

from litestar import Litestar, Request, get
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.middleware.base import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import RedocRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import Components, OpenAPI, OpenAPIResponse, SecurityScheme
from litestar.types import AfterExceptionHookHandler, ControllerRouterHandler

from idp_common.config import Settings
from idp_common.observability import logs, tracing
from idp_common.observability.request_context import RequestContext
from idp_common.state.redis_durability import warn_about_redis
from idp_common.web import shutdown
from idp_common.web.drain import ASGIApp, DrainRequestBody, Receive, Scope, Send
from idp_common.web.gc_tuning import freeze_startup_objects
from idp_common.web.guard import SECURITY_SCHEME
from idp_common.web.headers import security_headers
from idp_common.web.health import Check, health_handlers
from idp_common.web.json_body import JSONBodyRequest
from idp_common.web.metrics_endpoint import service_metrics
from idp_common.web.metrics_sources import ScrapeSource
from idp_common.web.problems import exception_handlers
from idp_common.web.resources import Resources, open_resources

VERSION = "0.1.0"


class ServiceApp(Protocol):
    """What a service's ``create_app`` returns: ASGI, for Granian; ``.app`` is Litestar."""

    app: Any

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None: ...


Lifespan = Callable[[Litestar], Any]


def _openapi(name: str) -> OpenAPIConfig:
    return OpenAPIConfig(
        title=f"Identity provider: {name}",
        version=VERSION,
        path="/docs",
        render_plugins=[SwaggerRenderPlugin(path="/")],
        components=Components(
            security_schemes={
                SECURITY_SCHEME: SecurityScheme(
                    type="http",
                    scheme="bearer",
                    bearer_format="JWT",
                    description="RS256 access token (RFC 9068) for the provider's API",
                )
            }
        ),
    )


def _described(document: OpenAPI) -> OpenAPI:
    """The document with no body on a 204 answer (RFC 9110 §15.3.5). A handler that sends
    work after its empty answer returns ``Response[None]`` (the only way to attach a
    background task), which Litestar describes as a JSON body."""
    for item in (document.paths or {}).values():
        for operation in (item.delete, item.post, item.put, item.patch):
            answer = (operation.responses or {}).get("204") if operation else None
            if isinstance(answer, OpenAPIResponse):
                answer.content = None
    return document


def _docs_aliases() -> list[Any]:
    """``/openapi.json`` and ``/redoc`` at the root, beside Litestar's ``/docs``."""
    redoc = RedocRenderPlugin()

    @get("/openapi.json", include_in_schema=False, media_type="application/json")
    async def openapi_json(request: Request[Any, Any, Any]) -> dict[str, Any]:
        schema: dict[str, Any] = _described(request.app.openapi_schema).to_schema()
        return schema

    @get("/redoc", include_in_schema=False, media_type="text/html")
    async def redoc_page(request: Request[Any, Any, Any]) -> bytes:
        return redoc.render(request, _described(request.app.openapi_schema).to_schema())

    return [openapi_json, redoc_page]


def _cors(settings: Settings) -> CORSConfig | None:
    if not settings.allowed_admin_origins:
        return None
    return CORSConfig(
        allow_origins=list(settings.allowed_admin_origins),
        allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
        allow_headers=["Authorization", "Content-Type", "DPoP"],  # DPoP: RFC 9449 §7
        expose_headers=["WWW-Authenticate", "DPoP-Nonce"],
        allow_credentials=False,
        max_age=600,
    )


def _check_redis(resources: Resources) -> Lifespan:
    """Ask Redis how it keeps data, once, in the background (it may be down at start-up;
    the service starts anyway): problems become warnings in the log."""

    @asynccontextmanager
    async def check(_: Litestar) -> AsyncIterator[None]:
        task = asyncio.get_running_loop().create_task(warn_about_redis(resources.redis))
        try:
            yield
        finally:
            task.cancel()

    return check


@asynccontextmanager
async def _freeze_when_started(_: Litestar) -> AsyncIterator[None]:
    """Entered last, when everything the service keeps for its life exists."""
    freeze_startup_objects()
    yield


def create_service_app(
    settings: Settings,
    *,
    name: str,
    route_handlers: Sequence[ControllerRouterHandler],
    health_checks: Mapping[str, Check] | None = None,
    lifespans: Sequence[Lifespan] = (),
    resources: Resources | None = None,
    after_exception: Sequence[AfterExceptionHookHandler[Exception]] = (),
    metric_sources: Sequence[ScrapeSource] = (),
) -> ServiceApp:
    """Wire a service; the Litestar app is ``.app`` of the returned ASGI callable.

    ``resources`` defaults to clients built from ``settings``; ``after_exception`` hooks
    see every exception before it is mapped to a response (the admin API audits refused
    writes there); ``metric_sources`` are read at every scrape of ``/metrics``.
    """
    logs.configure_logging(settings, service=name)  # JSON lines (docs/operations.md)
    held = resources or open_resources(settings)

    @asynccontextmanager
    async def close_resources(_: Litestar) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await held.aclose()

    draining = shutdown.Draining()  # set while `idp serve` drains this replica
    metrics = service_metrics(settings, name, held, metric_sources)
    handlers: list[Any] = [*health_handlers(health_checks), *metrics.handlers, *route_handlers]
    if not settings.is_prod:
        handlers.extend(_docs_aliases())
    app = Litestar(
        route_handlers=handlers,
        state=State({"resources": held, "service": name, shutdown.STATE_KEY: draining}),
        before_send=[security_headers(settings), shutdown.close_when_draining(draining)],
        exception_handlers=exception_handlers(),
        openapi_config=None if settings.is_prod else _openapi(name),
        cors_config=_cors(settings),
        lifespan=[
            tracing.lifespan(name),  # first in, last out: flushes after the others
            close_resources,
            _check_redis(held),
            held.key_ring.reloading,
            shutdown.drain_watch(draining),
            *metrics.lifespans,
            *lifespans,
            _freeze_when_started,
        ],
        # request ids in the log; traces when OTEL_EXPORTER_OTLP_ENDPOINT is set
        middleware=[
            *tracing.server_middleware(),
            DefineMiddleware(RequestContext, name_spans=tracing.enabled()),
        ],
        logging_config=None,  # idp_common.observability.logs configures logging
        after_exception=list(after_exception),
        debug=False,
        request_class=JSONBodyRequest,  # a JSON body nobody can decode is a 400, not a 500
    )
    # The largest body a route takes: a face image in base64 JSON (4/3 of the photo limit).
    limit = settings.avatar_max_bytes * 4 // 3 + 2 * 1024 * 1024
    return metrics.wrap(DrainRequestBody(cast(ASGIApp, app), limit=limit))
