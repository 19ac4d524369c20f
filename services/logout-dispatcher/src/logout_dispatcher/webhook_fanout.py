"""The webhook fan-out: JetStream ``{prefix}.webhook.>`` → ``webhook_deliveries`` rows
(docs/webhooks.md "Delivery").

- One durable pull consumer, ``webhook-fanout``, shared by every replica and worker.
- Each event becomes one pending delivery per enabled endpoint subscribed to its type
  (:func:`idp_common.storage.repos.webhooks.queue_event`, unique per endpoint and event
  id), in one transaction per batch; the messages are acknowledged only after it commits.
  PostgreSQL away: the batch is nak'ed with a delay and comes back, so nothing is lost;
  an event handled twice (redelivered after a lost ack) is queued once.
- Events of a type nobody subscribes to leave no row. An endpoint registered after an event
  was fanned out does not receive it.
- After a commit that queued rows, the delivery worker is woken (:meth:`WebhookWorker.wake`).
- An unreadable message (not JSON, no ``id`` or ``type``) is dropped (``term``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final

import msgspec
from nats.aio.msg import Msg
from nats.errors import Error as NatsError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.background import in_background
from idp_common.config import Settings
from idp_common.events import ensure_stream
from idp_common.events.nats_link import NatsLink
from idp_common.storage.repos.webhooks import queue_event

log = logging.getLogger("idp.webhooks")

DURABLE: Final = "webhook-fanout"
ACK_WAIT_SECONDS: Final = 30.0
BATCH: Final = 64
FETCH_SECONDS: Final = 5.0
RETRY_DELAY_SECONDS: Final = 5.0
MAX_EVENT_ID_LENGTH: Final = 200


class WebhookEvent(msgspec.Struct, frozen=True):
    """What the fan-out reads of an event; the rest of the payload is carried as it is."""

    id: str
    type: str


_decode = msgspec.json.Decoder(WebhookEvent).decode


def webhook_filter(nats_prefix: str) -> str:
    return f"{nats_prefix}.webhook.>"


def consumer_config(settings: Settings) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=DURABLE,
        filter_subject=webhook_filter(settings.nats_prefix),
        ack_policy=AckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.ALL,
        ack_wait=ACK_WAIT_SECONDS,
        max_ack_pending=BATCH * 16,
    )


class WebhookFanOut:
    def __init__(
        self,
        settings: Settings,
        nats: NatsLink,
        sessions: async_sessionmaker[AsyncSession],
        queued: Callable[[], None],
    ) -> None:
        self._settings = settings
        self._nats = nats
        self._sessions = sessions
        self._queued = queued

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with in_background(self._consume(), name="webhook-fanout"):
            yield

    async def _consume(self) -> None:
        while True:
            client = self._nats.client
            if client is None or not client.is_connected:
                await asyncio.sleep(0.2)
                continue
            try:
                await self._pull(client.jetstream())
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # NATS away or the stream recreated: subscribe again
                log.warning("webhooks: fan-out paused (%s)", type(exc).__name__)
                await asyncio.sleep(1)

    async def _pull(self, js: JetStreamContext) -> None:
        await ensure_stream(js, self._settings)
        subscription = await js.pull_subscribe(
            webhook_filter(self._settings.nats_prefix),
            durable=DURABLE,
            stream=self._settings.nats_stream,
            config=consumer_config(self._settings),
        )
        try:
            idle = 0
            while True:
                try:
                    messages = await subscription.fetch(BATCH, timeout=FETCH_SECONDS)
                except TimeoutError:
                    idle += 1
                    if idle % 6 == 0:  # the consumer may have gone with a recreated stream
                        await js.consumer_info(self._settings.nats_stream, DURABLE)
                    continue
                idle = 0
                await self.handle(messages)
        finally:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()

    async def handle(self, messages: list[Msg]) -> None:
        """Queue the batch's deliveries in one transaction, then acknowledge it."""
        readable: list[tuple[Msg, WebhookEvent]] = []
        for message in messages:
            try:
                event = _decode(message.data)
                if not event.id or len(event.id) > MAX_EVENT_ID_LENGTH or not event.type:
                    raise msgspec.ValidationError("no usable id or type")
            except (msgspec.DecodeError, msgspec.ValidationError):
                log.error("webhooks: unreadable event dropped (%s)", message.subject)
                await message.term()
                continue
            readable.append((message, event))
        if not readable:
            return
        try:
            queued = 0
            async with self._sessions.begin() as session:
                for message, event in readable:
                    queued += await queue_event(
                        session, event_id=event.id, event_type=event.type, payload=message.data
                    )
        except Exception as exc:  # Postgres away: the events come back after the delay
            log.warning("webhooks: events not queued (%s), retrying", type(exc).__name__)
            for message, _ in readable:
                with contextlib.suppress(NatsError):
                    await message.nak(delay=RETRY_DELAY_SECONDS)
            return
        if queued:
            self._queued()
        for message, _ in readable:  # a lost ack: redelivered, and queued once (unique key)
            await message.ack()
