"""``DrainRequestBody``: what is left of a body is read before the answer's last byte,
and a request without a body is not read at all (RFC 9112 §6)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from idp_common.web.drain import DrainRequestBody, Message, Scope, may_carry_body


def http_scope(headers: list[tuple[bytes, bytes]], version: str = "1.1") -> Scope:
    return {"type": "http", "http_version": version, "method": "POST", "headers": headers}


@pytest.mark.parametrize(
    ("headers", "version", "expected"),
    [
        ([], "1.1", False),
        ([(b"host", b"x")], "1.0", False),
        ([(b"content-length", b"0")], "1.1", False),
        ([(b"content-length", b" 0 ")], "1.1", False),
        ([(b"content-length", b"12")], "1.1", True),
        ([(b"Content-Length", b"12")], "1.1", True),
        ([(b"transfer-encoding", b"chunked")], "1.1", True),
        ([(b"host", b"x"), (b"transfer-encoding", b"chunked")], "1.1", True),
        ([], "2", True),  # HTTP/2 frames a body without either header
        ([], "3", True),
    ],
)
def test_may_carry_body(headers: list[tuple[bytes, bytes]], version: str, expected: bool) -> None:
    assert may_carry_body(http_scope(headers, version)) is expected


class Recorder:
    """An ASGI peer: hands out body chunks, records what the app sent."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.receives = 0
        self.sent: list[Message] = []

    async def receive(self) -> Message:
        self.receives += 1
        if not self.chunks:
            return {"type": "http.disconnect"}
        body = self.chunks.pop(0)
        return {"type": "http.request", "body": body, "more_body": bool(self.chunks)}

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
