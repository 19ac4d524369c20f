"""The outbox relay: publishes ``event_outbox`` rows to JetStream and marks them sent.

docs/design.md "Events": a session's end is written to the outbox in the transaction that
revokes its refresh tokens, so it cannot be lost when NATS is down; this relay moves the
rows to the stream once NATS answers.

- Woken by ``LISTEN`` (``idp_common.storage.repos.outbox.announce``) the moment a row commits, and
  every ``poll_seconds`` anyway (a missed notification, rows left while NATS was down).
- Rows are claimed with ``FOR UPDATE SKIP LOCKED`` (``repos.outbox.claim_pending``):
  several replicas may run the relay and each row is published by one of them at a time.
- Each message carries ``Nats-Msg-Id`` = the row's id and creation time, so a row published
  again (the relay died between publishing and marking) is dropped by JetStream's
  duplicate window instead of being delivered twice.
- A failed publish stops the batch: what was published is marked, the rest waits.
- A row written in a traced request (``traceparent``) is published in a producer span of
  that trace, carried by the message's ``traceparent`` header
  (:mod:`idp_common.events.trace_context`). The relay's own statements are not traced: it
  polls every second, and each poll would be a trace of its own.
- Stopping lets the batch in flight finish (up to ``STOP_SECONDS``), so rows it published
  are marked instead of being published again by the next relay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import asyncpg
from nats.errors import Error as NatsError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.config import Settings
from idp_common.events.nats_link import NatsLink
from idp_common.events.stream import ensure_stream
from idp_common.events.trace_context import publishing, untraced
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.hot_pool import asyncpg_dsn
from idp_common.storage.repos.outbox import OUTBOX_CHANNEL, claim_pending, mark_published

log = logging.getLogger("idp.relay")

BATCH: Final = 200
PUBLISH_TIMEOUT: Final = 2.0
#: How often the notification connection is checked (a dead socket is not noticed idle).
LISTENER_CHECK_SECONDS: Final = 10.0
STOP_SECONDS: Final = 5.0


class OutboxRelay:
    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        nats: NatsLink,
        *,
        poll_seconds: float = 1.0,
    ) -> None:
        self._settings = settings
        self._sessions = sessions
        self._nats = nats
        self._poll = poll_seconds
        self._wake = asyncio.Event()
        self._stream_ready = False
        self._batch = asyncio.Lock()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the relay for the life of the block (a Litestar lifespan)."""
        with untraced():  # the tasks keep it: polls and LISTEN checks make no traces
            tasks = [
                asyncio.create_task(self._listen(), name="outbox-listen"),
                asyncio.create_task(self._relay(), name="outbox-relay"),
            ]
        try:
            yield
        finally:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._batch.acquire(), STOP_SECONDS)
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if self._batch.locked():
                self._batch.release()

    def _on_notify(self, *_: Any) -> None:
        self._wake.set()

    async def _listen(self) -> None:
        dsn = asyncpg_dsn(self._settings.database_url)
        while True:
            try:
                connection = await asyncpg.connect(dsn, timeout=5)
                try:
                    await connection.add_listener(OUTBOX_CHANNEL, self._on_notify)
                    self._wake.set()  # rows may have committed while nobody listened
                    while True:
                        await asyncio.sleep(LISTENER_CHECK_SECONDS)
                        await connection.execute("SELECT 1")
                finally:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(connection.close(), 2)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Postgres away: the periodic poll still runs
                log.warning("relay: notification connection lost (%s)", type(exc).__name__)
            await asyncio.sleep(1)

    async def _relay(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll)
            self._wake.clear()
            if not self._nats.is_connected:
                continue
            try:
                async with self._batch:
                    await self.publish_pending()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # NATS or Postgres away: the rows wait for the next turn
                self._stream_ready = False
                log.warning("relay: publishing paused (%s)", type(exc).__name__)

    async def publish_pending(self) -> int:
        """Publish every unpublished row now; return how many. Raises when NATS refuses
        (what was published before that is marked)."""
        client = self._nats.client
        if client is None:
            return 0
        js = client.jetstream()
        if not self._stream_ready:
            await ensure_stream(js, self._settings)
            self._stream_ready = True
        total = 0
        while True:
            failure: Exception | None = None
            async with self._sessions.begin() as db:
                rows = await claim_pending(db, BATCH)
                published: list[int] = []
                for row in rows:
                    msg_id = f"{row.id}-{row.created_at.timestamp()}"
                    try:
                        with publishing(row.subject, row.traceparent) as trace_headers:
                            await js.publish(
                                row.subject,
                                row.payload,
                                timeout=PUBLISH_TIMEOUT,
                                headers={"Nats-Msg-Id": msg_id, **trace_headers},
                            )
                    except (NatsError, TimeoutError) as exc:
                        failure = exc
                        break
                    published.append(row.id)
                if published:
                    await mark_published(db, published)
            total += len(published)
            if failure is not None:
                raise failure
            if len(rows) < BATCH:
                return total


async def relay_once(settings: Settings, *, connect_seconds: float = 5.0) -> int:
    """``idp relay``: publish what the outbox holds now, once; return how many rows.

    For an operator draining the outbox while no dispatcher runs (the events then wait in
    the stream for the durable consumer). Raises ``TimeoutError`` when NATS does not answer.
    """
    engine = create_engine(settings.database_url)
    link = NatsLink(settings.nats_url, name="idp-relay")
    link.start()
    try:
        await link.wait_connected(connect_seconds)
        relay = OutboxRelay(settings, create_session_factory(engine), link)
        return await relay.publish_pending()
    finally:
        await link.close()
        await engine.dispose()
