"""Back-channel logout receivers: real HTTP servers on 127.0.0.1 that record what they get.

Each :class:`Receiver` is an asyncio server in a thread of its own, speaking just enough
HTTP/1.1 to read a POST with a body and answer it. ``status`` is what it answers; with
``hang=True`` it reads the request and never answers (the connection stays open until
the receiver stops); with ``delay`` it answers after that many seconds. The sender sees
a real TCP peer either way.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType
from urllib.parse import parse_qs


@dataclass(frozen=True)
class Received:
    at: float  # time.time() when the body was read
    path: str
    headers: dict[str, str]
    form: dict[str, str]


@dataclass
class Receiver:
    status: int = 200
    hang: bool = False
    delay: float = 0.0
    received: list[Received] = field(default_factory=list)
    port: int = 0
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _stop: asyncio.Event | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/backchannel-logout"

    def url_for(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    # --- life ------------------------------------------------------------------------
    def __enter__(self) -> Receiver:
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("receiver did not start")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.run(self._serve(ready))

    async def _serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=1024)
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        async with server:
            await self._stop.wait()
            server.close()

    # --- HTTP ------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the peer went away, or the receiver is stopping
        finally:
            writer.close()

    async def _one_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        _, path, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8")).items()}
        with self._lock:
            self.received.append(Received(time.time(), path, headers, form))
        if self.hang:
            assert self._stop is not None
            await self._stop.wait()
            return False
        if self.delay:
            await asyncio.sleep(self.delay)
        answer = f"HTTP/1.1 {self.status} X\r\nContent-Length: 0\r\n\r\n"
        writer.write(answer.encode())
        await writer.drain()
        return headers.get("connection", "").lower() != "close"

    # --- reading ---------------------------------------------------------------------
    def snapshot(self) -> list[Received]:
        with self._lock:
            return list(self.received)

    def clear(self) -> None:
        with self._lock:
            self.received.clear()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Block until ``count`` requests arrived (or ``timeout``); return what arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.snapshot()
            if len(got) >= count:
                return got
            time.sleep(0.01)
        return self.snapshot()
