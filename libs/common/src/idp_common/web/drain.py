"""Read what is left of a request body before the last byte of the response.

Granian closes the connection when an app answers without reading the request body; a
proxy still streaming that body then fails with a broken pipe and turns the app's
answer (a 401, a 404, a 413 of its own) into a 502. Draining up to ``limit`` bytes lets
the real answer through. Wraps the whole app: Litestar's router answers 404 and 405
before any app middleware runs.

A request that carries no body (most GETs) is passed straight through: draining it would
still cost one more ``receive`` after the answer, a hand-off from Granian's I/O thread to
the event loop that made a bare GET a third slower (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

# Plain ASGI shapes: the wrapper sits outside Litestar and sees raw messages.
Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def may_carry_body(scope: Scope) -> bool:
    """RFC 9112 §6.1-6.3: an HTTP/1.x request has a body only when it sends
    ``Transfer-Encoding`` or a ``Content-Length`` other than 0. HTTP/2 and HTTP/3 frame a
    body without either header, so their requests always may carry one."""
    if scope.get("http_version") not in ("1.0", "1.1"):
        return True
    name: bytes
    value: bytes
    for name, value in scope.get("headers", ()):
        lowered = name.lower()
        if lowered == b"transfer-encoding":
            return True
        if lowered == b"content-length":
            return value.strip() != b"0"
    return False


class DrainRequestBody:
    def __init__(self, app: ASGIApp, *, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not may_carry_body(scope):
            await self.app(scope, receive, send)
            return
        body_done = False

        async def tracking_receive() -> Message:
            nonlocal body_done
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                body_done = True
            return message

        async def draining_send(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                drained = 0
                while not body_done and drained <= self.limit:
                    left = await tracking_receive()
                    drained += len(left.get("body", b""))
            await send(message)

        await self.app(scope, tracking_receive, draining_send)
