"""Read what is left of a request body before the last byte of the response.

Granian closes the connection when an app answers without reading the request body; a
proxy still streaming that body then fails with a broken pipe and turns the app's
answer (a 401, a 404, a 413 of its own) into a 502. Draining up to ``limit`` bytes lets
the real answer through. Wraps the whole app: Litestar's router answers 404 and 405
before any app middleware runs.

Each ``receive`` that waits for Granian is a hand-off from its I/O thread to the event
loop, and costs more CPU than a bare Litestar route (docs/decisions.md). So a request that
declares no body (RFC 9112 §6.3: most GETs) is passed straight through, and once every
octet of a declared ``Content-Length`` has arrived the message says ``more_body: False``:
HTTP/1.1 framing has ended the body, and neither the app nor the drain asks Granian
for its separate end-of-body message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from idp_common.protocol.rfc9112_body import declared_body_length

# Plain ASGI shapes: the wrapper sits outside Litestar and sees raw messages.
Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class DrainRequestBody:
    def __init__(self, app: ASGIApp, *, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            receive, send = self.wrap(scope, receive, send)
        await self.app(scope, receive, send)

    def wrap(self, scope: Scope, receive: Receive, send: Send) -> tuple[Receive, Send]:
        """The ``receive`` and ``send`` the app gets for one HTTP request: untouched when
        it declares no body. A function, not a coroutine of its own, so that another
        outermost wrapper (``idp_common.web.metrics_http``) can apply it without adding a
        coroutine to every request's chain."""
        length = declared_body_length(scope.get("http_version", ""), scope.get("headers", ()))
        if length == 0:
            return receive, send
        body_done = False
        received = 0

        async def tracking_receive() -> Message:
            nonlocal body_done, received
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                body_done = True
            elif length is not None:
                received += len(message.get("body", b""))
                if received >= length:
                    body_done = True
                    message = {**message, "more_body": False}
            return message

        async def draining_send(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                drained = 0
                while not body_done and drained <= self.limit:
                    left = await tracking_receive()
                    drained += len(left.get("body", b""))
            await send(message)

        return tracking_receive, draining_send
