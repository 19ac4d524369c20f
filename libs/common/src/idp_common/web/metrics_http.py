"""Counting every HTTP request: ``idp_http_requests_total`` and
``idp_http_request_duration_seconds`` (``idp_common.observability.metrics``).

The outermost ASGI app when metrics are on, so that it sees what Litestar's router answers
by itself (404, 405: no app middleware runs for those) and times the body drain too. The
route label is Litestar's path template of the matched route (``scope["path_template"]``,
set by the router), ``unmatched`` when no route matched: never the raw path, which a client
chooses. A method outside the usual few is ``other``.

Cheap on purpose (the token endpoint answers thousands of requests a second): it takes the
place of ``DrainRequestBody`` as the outermost coroutine and applies the drain's wrapping
itself (``DrainRequestBody.wrap``), because one more coroutine in every request's chain cost
about 2 µs on userinfo, more than the counting. Per request: one closure, two clock reads,
one dict lookup and three integer additions to the worker's tally, which
``observability.metrics.flush`` writes out every second (docs/decisions.md).
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

from idp_common.observability.metrics import HTTP_METHODS, UNMATCHED_ROUTE, http_tally
from idp_common.web.drain import DrainRequestBody, Message, Receive, Scope, Send


class RequestMetrics:
    """Serves ``drain``'s app as ``drain`` would, counted; ``app`` is that app (Litestar),
    reachable as ``.app`` the way ``DrainRequestBody`` offers it."""

    def __init__(self, drain: DrainRequestBody) -> None:
        self.drain = drain
        self.app: Any = drain.app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = perf_counter()
        status = 500  # what Granian answers when the app fails before starting a response

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        receive, inner_send = self.drain.wrap(scope, receive, send_and_note)
        try:
            await self.app(scope, receive, inner_send)
        finally:
            seconds = perf_counter() - started
            method = scope["method"]
            http_tally(
                scope.get("path_template") or UNMATCHED_ROUTE,
                method if method in HTTP_METHODS else "other",
                status,
            ).add(seconds)
