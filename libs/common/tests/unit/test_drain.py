"""``DrainRequestBody``: what is left of a body is read before the answer's last byte; a
request without a body is not read at all, and a body whose declared length has arrived
is ended without waiting for the server's end-of-body message (RFC 9112 §6)."""

from __future__ import annotations

import asyncio
from typing import Any

from idp_common.web.drain import DrainRequestBody, Message, Scope


def http_scope(headers: list[tuple[bytes, bytes]], version: str = "1.1") -> Scope:
    return {"type": "http", "http_version": version, "method": "POST", "headers": headers}


class Recorder:
    """An ASGI peer: hands out body chunks, records what the app sent."""

    def __init__(self, chunks: list[bytes], *, end_message: bool = False) -> None:
        self.chunks = chunks
        self.end_message = end_message  # as Granian: the last chunk says more_body, then b""
        self.receives = 0
        self.sent: list[Message] = []

    async def receive(self) -> Message:
        self.receives += 1
        if not self.chunks:
            return {"type": "http.disconnect"}
        body = self.chunks.pop(0)
        more = bool(self.chunks) or (self.end_message and body != b"")
        if self.end_message and not self.chunks and body != b"":
            self.chunks.append(b"")
        return {"type": "http.request", "body": body, "more_body": more}

    async def send(self, message: Message) -> None:
        self.sent.append(message)


async def answers_without_reading(_scope: Scope, _receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 401, "headers": []})
    await send({"type": "http.response.body", "body": b"no", "more_body": False})


def test_unread_body_is_drained_before_the_last_byte() -> None:
    peer = Recorder([b"a" * 10, b"b" * 10, b"c" * 10])
    app = DrainRequestBody(answers_without_reading, limit=1000)
    asyncio.run(app(http_scope([(b"content-length", b"30")]), peer.receive, peer.send))
    assert peer.receives == 3
    assert peer.chunks == []
    assert [m["type"] for m in peer.sent] == ["http.response.start", "http.response.body"]


def test_drain_stops_at_the_limit() -> None:
    peer = Recorder([b"a" * 10] * 10)
    app = DrainRequestBody(answers_without_reading, limit=25)
    asyncio.run(app(http_scope([(b"content-length", b"100")]), peer.receive, peer.send))
    assert peer.receives == 3  # 30 bytes read: past the limit of 25, the rest is left
    assert peer.sent[-1]["body"] == b"no"


def test_request_without_body_is_not_read() -> None:
    peer = Recorder([b""])
    app = DrainRequestBody(answers_without_reading, limit=1000)
    asyncio.run(app(http_scope([(b"host", b"x")]), peer.receive, peer.send))
    assert peer.receives == 0
    assert peer.sent[-1]["body"] == b"no"


async def reads_whole_body(_scope: Scope, receive: Any, send: Any) -> None:
    seen: list[Message] = []
    while True:
        message = await receive()
        seen.append(message)
        if not message.get("more_body", False):
            break
    body = b"".join(m.get("body", b"") for m in seen)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"%d:%d" % (len(seen), len(body))})


def test_declared_length_reached_ends_the_body() -> None:
    peer = Recorder([b"a" * 10, b"b" * 5], end_message=True)
    app = DrainRequestBody(reads_whole_body, limit=1000)
    asyncio.run(app(http_scope([(b"content-length", b"15")]), peer.receive, peer.send))
    assert peer.sent[-1]["body"] == b"2:15"  # two messages, the second marked as the last
    assert peer.receives == 2
    assert peer.chunks == [b""]  # the server's end-of-body message was never asked for


def test_chunked_body_waits_for_the_servers_end() -> None:
    peer = Recorder([b"a" * 10, b"b" * 5], end_message=True)
    app = DrainRequestBody(reads_whole_body, limit=1000)
    asyncio.run(app(http_scope([(b"transfer-encoding", b"chunked")]), peer.receive, peer.send))
    assert peer.sent[-1]["body"] == b"3:15"
    assert peer.receives == 3
