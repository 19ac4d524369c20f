"""A thinner transport for a service's hottest routes.

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
- an exception becomes a response through the exception handlers Litestar would use for
  that route (its layers' ``exception_handlers``, resolved once and looked up the way
  Litestar looks them up: the status code of an ``HTTPException``, then the exception's
  classes in MRO order), so each route keeps the one error mapping of its app.

A request with an ``Origin`` header (a browser's: CORS applies) and every other route take
the full stack, and a service with tracing on installs no lean routes (its spans come from
Litestar's middleware). Measured in ``bench/`` before it stayed (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from inspect import getmro
from typing import Any, Final, cast

from litestar import Litestar, Request, Response
from litestar._asgi.utils import is_valid_host  # the router's own check, kept identical
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.handlers import HTTPRouteHandler
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from litestar.types import ASGIApp, ExceptionHandlersMap, HTTPScope, Receive, Scope, Send

from idp_common.observability import tracing
from idp_common.observability.request_context import bind_request_id, unbind_request_id

Endpoint = Callable[[Request[Any, Any, Any]], Awaitable[Response[Any]]]

_ORIGIN: Final = b"origin"
_HOST: Final = b"host"


def _takes_full_stack(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """A browser's request (CORS applies) or a ``Host`` the router would refuse."""
    for name, value in headers:
        if name == _ORIGIN or (name == _HOST and not is_valid_host(value)):
            return True
    return False


def encode_response(response: Response[Any]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Status, raw headers and body of an endpoint's or error handler's ``Response`` (no
    cookies, no background task: what these return), as Litestar writes them."""
    media_type = response.media_type or "application/json"
    content = response.content
    body = content if isinstance(content, bytes) else response.render(content, media_type)
    if media_type.startswith("text/"):  # as Litestar's ASGIResponse names the encoding
        media_type = f"{media_type}; charset={response.encoding}"
    headers = [(b"content-type", media_type.encode("latin-1"))]
    headers.append((b"content-length", str(len(body)).encode("latin-1")))
    headers.extend(
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in response.headers.items()
    )
    return response.status_code or 200, headers, body


def find_exception_handler(handlers: ExceptionHandlersMap, exc: Exception) -> Any:
    """The handler Litestar would pick for ``exc``: an ``HTTPException``'s status code
    first, then the classes of ``exc`` in MRO order, then a 500 handler for any other
    exception; None when there is none."""
    if isinstance(exc, HTTPException):
        if by_status := handlers.get(exc.status_code):
            return by_status
        fallback = None
    else:
        fallback = handlers.get(HTTP_500_INTERNAL_SERVER_ERROR)
    return next((handlers[cls] for cls in getmro(type(exc)) if cls in handlers), fallback)


@dataclass(frozen=True)
class LeanRoute:
    endpoint: Endpoint
    handler: HTTPRouteHandler  # the Litestar route handler of the same path
    exception_handlers: ExceptionHandlersMap  # resolved through its layers


class LeanRoutes:
    """Serves the ``routes`` (exact method and path) itself, everything else by ``app``."""

    def __init__(self, app: ASGIApp, routes: Mapping[tuple[str, str], LeanRoute]) -> None:
        self.app = app
        self.routes = dict(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = None
        if scope["type"] == ScopeType.HTTP:
            route = self.routes.get((scope["method"], scope["path"]))
        if route is None or _takes_full_stack(scope["headers"]):
            await self.app(scope, receive, send)
            return
        await self._serve(route, cast(HTTPScope, scope), receive, send)

    async def _serve(
        self, route: LeanRoute, scope: HTTPScope, receive: Receive, send: Send
    ) -> None:
        scope["route_handler"] = route.handler  # its body limit applies (Request.body)
        scope["path_template"] = scope["path"]
        scope.setdefault("path_params", {})
        bound = bind_request_id(scope["headers"])
        try:
            request: Request[Any, Any, Any] = Request(scope, receive, send)
            try:
                response = await route.endpoint(request)
            except Exception as exc:
                handle = find_exception_handler(route.exception_handlers, exc)
                if handle is None:
                    raise
                response = handle(request, exc)
            status, headers, body = encode_response(response)
            bound.status = status
            headers.append(bound.header)
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})
        finally:
            unbind_request_id(bound, scope)


def install_lean_routes(app: Litestar, routes: Mapping[tuple[str, str], Endpoint]) -> bool:
    """Put :class:`LeanRoutes` in place of ``app``'s ASGI handler, unless tracing is on;
    each route must be one the app's router serves at that exact path (its handler's
    settings, such as the body limit and the exception handlers, still apply). True when
    installed."""
    if tracing.enabled():
        return False
    resolved: dict[tuple[str, str], LeanRoute] = {}
    for (method, path), endpoint in routes.items():
        _, handler, _, _, template = app.asgi_router.handle_routing(path=path, method=method)
        if template != path or not isinstance(handler, HTTPRouteHandler):
            raise ValueError(f"{method} {path} is not a route of its own (template {template})")
        resolved[method, path] = LeanRoute(endpoint, handler, handler.resolve_exception_handlers())
    app.asgi_handler = LeanRoutes(app.asgi_handler, resolved)
    return True
