"""The request id of each request, for the log lines it causes (and its server span).

The public proxy sets ``X-Request-Id`` to nginx's ``$request_id`` on every proxied request
(32 hex digits), replacing whatever the client sent, so through the proxy a client never
chooses it. A caller reaching a service's own port (another service, a load balancer, a
test) may send one: it is kept when it is well formed (1 to 64 letters, digits and
``._:-``, so it cannot break a log line or a header), otherwise a new one is made. The id
is returned in the response's ``X-Request-Id``, so a person reporting a problem can quote
it. At ``SVC_LOG_LEVEL=DEBUG`` each request also ends with one line, ``idp.request``:
method, route template, status and duration (never the path's values or the query).

:class:`RequestContext` is an app middleware (Litestar runs those after routing): it also
names the server span after the route template when tracing is on, which the span's
start, before routing, cannot.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any, Final

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from opentelemetry import trace

HEADER: Final = b"x-request-id"
_MAX_LENGTH: Final = 64
#: The characters a caller's id may use: what survives a header and a log line unquoted.
_ALLOWED: Final = bytes(
    b for b in range(128) if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "._:-")
)
_REQUEST_ID: ContextVar[str | None] = ContextVar("idp_request_id", default=None)
log = logging.getLogger("idp.request")


def current_request_id() -> str | None:
    """The id of the request being handled in this context; None outside a request."""
    return _REQUEST_ID.get()


def new_request_id() -> str:
    """An id of the proxy's shape: 32 hex digits. Unique, not secret (a log key), so the
    process's random generator, reseeded in every worker, serves."""
    return f"{random.getrandbits(128):032x}"


def is_well_formed(value: bytes) -> bool:
    """1 to 64 letters, digits and ``._:-`` (``bytes.translate`` deletes the allowed ones)."""
    return 0 < len(value) <= _MAX_LENGTH and not value.translate(None, _ALLOWED)


def request_id_of(headers: Iterable[tuple[bytes, bytes]]) -> str:
    """The caller's ``X-Request-Id`` when it is well formed, else a new id."""
    for name, value in headers:
        if name == HEADER:
            if is_well_formed(value):
                return value.decode("ascii")
            break
    return new_request_id()


class BoundRequest:
    """One request's id, bound in the context until :func:`unbind_request_id`."""

    __slots__ = ("header", "request_id", "started", "status", "token")

    def __init__(self, request_id: str) -> None:
        self.request_id = request_id
        self.header = (HEADER, request_id.encode("ascii"))
        self.started = time.perf_counter() if log.isEnabledFor(logging.DEBUG) else 0.0
        self.status = 0
        self.token = _REQUEST_ID.set(request_id)


def bind_request_id(headers: Iterable[tuple[bytes, bytes]]) -> BoundRequest:
    """Bind the caller's well-formed id (or a new one) for the log lines of this request."""
    return BoundRequest(request_id_of(headers))


def unbind_request_id(bound: BoundRequest, scope: Scope) -> None:
    """The request's end: its DEBUG line (method, route template, status, duration)."""
    if bound.started:
        took = (time.perf_counter() - bound.started) * 1000
        route = scope.get("path_template") or "(no route)"
        log.debug("%s %s %d %.1f ms", scope.get("method"), route, bound.status, took)
    _REQUEST_ID.reset(bound.token)


class RequestContext:
    """Binds the request id for the request's life and returns it in the response."""

    def __init__(self, app: ASGIApp, *, name_spans: bool = False) -> None:
        self.app = app
        self.name_spans = name_spans

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        bound = bind_request_id(scope["headers"])
        if self.name_spans:
            _name_server_span(scope, bound.request_id)
        echoed = bound.header

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                bound.status = message["status"]
                headers = message.get("headers")
                if isinstance(headers, list):
                    headers.append(echoed)
                else:
                    message["headers"] = [*(headers or ()), echoed]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            unbind_request_id(bound, scope)


def _name_server_span(scope: Scope, request_id: str) -> None:
    """``GET /admin/users/{user_id}``: the route template, never the path's values."""
    span = trace.get_current_span()
    template: Any = scope.get("path_template")
    if template:
        span.update_name(f"{scope.get('method', 'HTTP')} {template}")
        span.set_attribute("http.route", template)
    span.set_attribute("idp.request_id", request_id)
