"""Webhook tests' tools: a receiver that records raw bodies and answers from a script, an
event written to the outbox as the events' writers do, and the admin calls they share."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import asyncpg
import standardwebhooks

from idp_common.events.webhook_events import webhook_payload, webhook_subject
from idp_common.storage.repos import outbox
from tests.harness import infra
from tests.harness.rows import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi

HANG = "hang"  # a script step: read the request, never answer


@dataclass(frozen=True)
class Receipt:
    at: float
    headers: dict[str, str]
    body: bytes


@dataclass
class WebhookReceiver:
    """A real HTTP/1.1 server on 127.0.0.1 in a thread of its own. ``script`` is what it
    answers, request after request (a status code, or :data:`HANG`); the last step repeats."""

    script: list[int | str] = field(default_factory=lambda: [200])
    received: list[Receipt] = field(default_factory=list)
    port: int = 0
    _loop: asyncio.AbstractEventLoop | None = None
    _stop: asyncio.Event | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def __enter__(self) -> WebhookReceiver:
        ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve(ready)))
        self._thread.daemon = True
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("receiver did not start")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    async def _serve(self, ready: threading.Event) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        async with server:
            await self._stop.wait()
            server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                headers = {}
                for line in head.decode("latin-1").split("\r\n")[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                with self._lock:
                    step = self.script[min(len(self.received), len(self.script) - 1)]
                    self.received.append(Receipt(time.time(), headers, body))
                if step == HANG:
                    assert self._stop is not None
                    await self._stop.wait()
                    return
                writer.write(f"HTTP/1.1 {step} X\r\nContent-Length: 0\r\n\r\n".encode())
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    def snapshot(self) -> list[Receipt]:
        with self._lock:
            return list(self.received)

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Receipt]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(self.snapshot()) < count:
            time.sleep(0.01)
        return self.snapshot()


async def _emit(stack: Stack, subject: str, payload: dict[str, Any]) -> None:
    dsn = stack.database_url.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            await outbox.add_event(conn, subject, payload)
            await outbox.announce(conn)
    finally:
        await conn.close()


def emit(stack: Stack, event_type: str, **data: Any) -> dict[str, Any]:
    """Write one webhook event to the outbox (subject and payload of the events' contract)
    and announce it, as a change's transaction does; the payload."""
    payload = webhook_payload(event_type, data)
    infra.run(_emit(stack, webhook_subject(stack.env["SVC_NATS_PREFIX"], event_type), payload))
    return payload


class WebhookAdmin(AdminApi):
    """The admin client of these tests; :meth:`close` deletes the endpoints it registered,
    so later tests' events (the stack is shared) are not queued for receivers now gone."""

    def __init__(self, stack: Stack, *, base_url: str | None = None) -> None:
        super().__init__(stack, base_url=base_url)
        self.registered: list[str] = []

    def close(self) -> None:
        for endpoint_id in self.registered:
            self.delete(f"/admin/webhooks/{endpoint_id}")
        super().close()


def register(api: AdminApi, url: str, event_types: list[str], **extra: Any) -> dict[str, Any]:
    response = api.post("/admin/webhooks", json={"url": url, "eventTypes": event_types, **extra})
    assert response.status_code == 201, response.text
    created = dict(response.json())
    if isinstance(api, WebhookAdmin):
        api.registered.append(created["id"])
    return created


def verify(secret: str, receipt: Receipt) -> Any:
    """The payload, once the Standard Webhooks library accepted the signature."""
    return standardwebhooks.Webhook(secret).verify(receipt.body, receipt.headers)


def delivery_rows(stack: Stack, endpoint_id: str) -> list[dict[str, object]]:
    return query(
        stack,
        "SELECT id, event_id, status, attempts, last_status_code, last_error, lease_until"
        " FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at",
        endpoint_id,
    )


def wait_for_status(
    stack: Stack, endpoint_id: str, status: str, timeout: float = 40.0
) -> list[dict[str, object]]:
    """The endpoint's delivery rows once every one has ``status`` (or the timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = delivery_rows(stack, endpoint_id)
        if (rows and all(r["status"] == status for r in rows)) or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)
