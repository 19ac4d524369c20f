"""A NATS connection that a service keeps trying to open in the background.

nats-py raises when the first connect fails; a service must still start (and report
``nats: unreachable``) while NATS is down, so the first connection is retried here and
nats-py's own reconnect logic takes over once it has succeeded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import nats
from nats.aio.client import Client

log = logging.getLogger("idp.nats")


class NatsLink:
    def __init__(self, url: str, *, name: str, retry_seconds: float = 1.0) -> None:
        self._url = url
        self._name = name
        self._retry = retry_seconds
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._first_connect = asyncio.Event()

    @property
    def client(self) -> Client | None:
        return self._client

    @property
    def is_connected(self) -> bool:
        return self._client is not None and self._client.is_connected

    def start(self) -> None:
        self._task = asyncio.create_task(self._connect_until_done(), name=f"nats-{self._name}")

    async def _connect_until_done(self) -> None:
        while True:
            try:
                self._client = await nats.connect(
                    self._url,
                    name=self._name,
                    connect_timeout=2,
                    allow_reconnect=True,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=1,
                )
                log.info("nats: connected")
                self._first_connect.set()
                return
            except Exception as exc:  # keep trying: NATS may come up after us
                log.warning("nats: connect failed (%s), retrying", type(exc).__name__)
                await asyncio.sleep(self._retry)

    async def wait_connected(self, seconds: float) -> None:
        """Wait until the first connection is open; ``TimeoutError`` after ``seconds``."""
        await asyncio.wait_for(self._first_connect.wait(), seconds)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._client is not None and not self._client.is_closed:
            await self._client.close()
