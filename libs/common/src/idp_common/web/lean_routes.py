"""A thinner transport for a service's hottest routes (issue #24, item 3).

Litestar spends, per request, routing, the handler's parameter resolution, its own
exception middleware and the conversion of the handler's ``Response`` into ASGI messages:
about 20 % of the CPU of a userinfo request that the proxy already shaped. For a few exact
``(method, path)`` pairs a service names, :class:`LeanRoutes` skips those layers and calls
the very endpoint function the route handler calls (one home per rule: the endpoint and
``protocol/`` decide; this module only carries bytes):

- it sits where Litestar's own ASGI handler sits (``Litestar.asgi_handler``), so what
  ``Litestar.__call__`` does for every request still happens: ``scope["app"]``, and the
  ``before_send`` hooks (security headers, ``Connection: close`` while draining);
- it binds the request id exactly as ``RequestContext`` does and sets
  ``scope["path_template"]`` for the request metrics;
- an exception becomes a response through the app's one error mapping (``errors``).

A request with an ``Origin`` header (a browser's: CORS applies) and every other route take
the full stack, and a service with tracing on installs no lean routes (its spans come from
Litestar's middleware). Measured in ``bench/`` before it stayed (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final, cast

from litestar import Litestar, Request, Response
from litestar._asgi.utils import is_valid_host  # the router's own check, kept identical
from litestar.enums import ScopeType
from litestar.handlers import HTTPRouteHandler
from litestar.types import ASGIApp, HTTPScope, Receive, Scope, Send

from idp_common.observability import tracing
from idp_common.observability.request_context import bind_request_id, unbind_request_id

Endpoint = Callable[[Request[Any, Any, Any]], Awaitable[Response[bytes]]]
ErrorMapping = Callable[[Request[Any, Any, Any], Exception], Response[bytes]]

_ORIGIN: Final = b"origin"
_HOST: Final = b"host"


def _takes_full_stack(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """A browser's request (CORS applies) or a ``Host`` the router would refuse."""
    for name, value in headers:
        if name == _ORIGIN or (name == _HOST and not is_valid_host(value)):
            return True
    return False


def encode_response(response: Response[bytes]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Status, raw headers and body of an endpoint's ``Response`` (bytes content, no
    cookies, no background task: what the lean endpoints return), as Litestar writes them."""
    body = response.content
    headers = [(b"content-type", (response.media_type or "application/json").encode("latin-1"))]
    headers.append((b"content-length", str(len(body)).encode("latin-1")))
    headers.extend(
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in response.headers.items()
    )
    return response.status_code or 200, headers, body


class LeanRoutes:
    """Serves the ``routes`` (exact method and path) itself, everything else by ``app``."""

    def __init__(
        self,
        app: ASGIApp,
        routes: Mapping[tuple[str, str], tuple[Endpoint, HTTPRouteHandler]],
        errors: ErrorMapping,
    ) -> None:
        self.app = app
        self.routes = dict(routes)
        self.errors = errors

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = None
        if scope["type"] == ScopeType.HTTP:
            route = self.routes.get((scope["method"], scope["path"]))
        if route is None or _takes_full_stack(scope["headers"]):
            await self.app(scope, receive, send)
            return
        await self._serve(route, cast(HTTPScope, scope), receive, send)

    async def _serve(
        self,
        route: tuple[Endpoint, HTTPRouteHandler],
        scope: HTTPScope,
        receive: Receive,
        send: Send,
    ) -> None:
        endpoint, scope["route_handler"] = route  # its body limit applies (Request.body)
        scope["path_template"] = scope["path"]
        scope.setdefault("path_params", {})
        bound = bind_request_id(scope["headers"])
        try:
            request: Request[Any, Any, Any] = Request(scope, receive, send)
            try:
                response = await endpoint(request)
            except Exception as exc:
                response = self.errors(request, exc)
            status, headers, body = encode_response(response)
            bound.status = status
            headers.append(bound.header)
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})
        finally:
            unbind_request_id(bound, scope)


def install_lean_routes(
    app: Litestar, routes: Mapping[tuple[str, str], Endpoint], errors: ErrorMapping
) -> bool:
    """Put :class:`LeanRoutes` in place of ``app``'s ASGI handler, unless tracing is on;
    each route must be one the app's router serves at that exact path (its handler's
    settings, such as the body limit, still apply). True when installed."""
    if tracing.enabled():
        return False
    resolved: dict[tuple[str, str], tuple[Endpoint, HTTPRouteHandler]] = {}
    for (method, path), endpoint in routes.items():
        _, handler, _, _, template = app.asgi_router.handle_routing(path=path, method=method)
        if template != path or not isinstance(handler, HTTPRouteHandler):
            raise ValueError(f"{method} {path} is not a route of its own (template {template})")
        resolved[method, path] = (endpoint, handler)
    app.asgi_handler = LeanRoutes(app.asgi_handler, resolved, errors)
    return True
