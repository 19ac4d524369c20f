"""The load generator's HTTP/1.1: one keep-alive connection, a request written by hand,
the answer read back, and what counts as a failure."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

HEAD_END = b"\r\n\r\n"
SAMPLE_CHARS = 300


class Failure(Exception):
    """An answer that is not a success: ``kind`` counts it, ``sample`` shows it."""

    def __init__(self, kind: str, sample: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.sample = sample


@dataclass
class Answer:
    status: int
    headers: dict[bytes, bytes]
    body: bytes


class Connection:
    """One keep-alive HTTP/1.1 connection; reopened after an error or ``Connection: close``."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def send(self, raw: bytes) -> Answer:
        if self.writer is None or self.reader is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(raw)
        head = await self.reader.readuntil(HEAD_END)
        lines = head[: -len(HEAD_END)].split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers: dict[bytes, bytes] = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if b"content-length" in headers:
            body = await self.reader.readexactly(int(headers[b"content-length"]))
        elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            body = await self._chunked(self.reader)
        elif status in (204, 304) or 100 <= status < 200:
            body = b""
        else:  # delimited by close
            body = await self.reader.read()
            self.close()
        if headers.get(b"connection", b"").lower() == b"close":
            self.close()
        return Answer(status, headers, body)

    @staticmethod
    async def _chunked(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def http_request(
    method: str, path: str, host: str, headers: dict[str, str] | None = None, body: bytes = b""
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "User-Agent: idp-bench"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def failure_of(answer: Answer, what: str = "") -> Failure:
    prefix = f"{what}: " if what else ""
    return Failure(
        f"{prefix}HTTP {answer.status}", answer.body[:SAMPLE_CHARS].decode(errors="replace")
    )
