"""The dispatcher's JetStream consumer: ``{prefix}.session.ended`` → :class:`FanOut`.

- One durable pull consumer, ``logout-dispatcher``, shared by every replica: JetStream
  hands each message to one of them (no double delivery in normal operation).
- Explicit ack, sent once the event's attempts are done. A replica that dies mid-event
  leaves it unacknowledged, and JetStream gives it to another after ``ack_wait``.
- An event whose recipients cannot be read (Postgres away) is nak'ed with a delay and
  comes back; once the POSTs went out, the event is acknowledged whatever their outcome
  (contract §6: failed deliveries are not retried).
- Events are handled concurrently (a hanging application holds up only its own event),
  at most ``MAX_IN_FLIGHT`` at once; the rest wait in the stream for any replica.
- Each event is handled in a consumer span, ``logout fan-out``, child of the trace its
  message carries (the logout request's, through the outbox and the relay): the recipients'
  query and each back-channel POST are its children (docs/operations.md "Traces and logs").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import msgspec
from nats.aio.msg import Msg
from nats.errors import Error as NatsError
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext
from opentelemetry.trace import Span

from idp_common.background import in_background
from idp_common.config import Settings
from idp_common.events import ensure_stream
from idp_common.events.nats_link import NatsLink
from idp_common.events.trace_context import consuming
from idp_common.usecases.session_end import SessionEnded, session_ended_subject
from logout_dispatcher.fanout import FanOut

log = logging.getLogger("idp.logout")

DURABLE: Final = "logout-dispatcher"
ACK_WAIT_SECONDS: Final = 30.0
MAX_IN_FLIGHT: Final = 64
FETCH_SECONDS: Final = 5.0
RETRY_DELAY_SECONDS: Final = 5.0
#: Shutdown waits this long for events in flight (one delivery's five seconds and the audit).
DRAIN_SECONDS: Final = 7.0
FAN_OUT_SPAN: Final = "logout fan-out"

_decode = msgspec.json.Decoder(SessionEnded).decode


def consumer_config(settings: Settings) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=DURABLE,
        filter_subject=session_ended_subject(settings.nats_prefix),
        ack_policy=AckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.ALL,
        ack_wait=ACK_WAIT_SECONDS,
        max_ack_pending=MAX_IN_FLIGHT * 16,
    )


class SessionEndedConsumer:
    def __init__(self, settings: Settings, nats: NatsLink, fan_out: FanOut) -> None:
        self._settings = settings
        self._nats = nats
        self._fan_out = fan_out
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self._in_flight: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        try:
            async with in_background(self._consume(), name="session-ended-consumer"):
                yield
        finally:
            if self._in_flight:  # let them finish and ack, rather than be sent again
                await asyncio.wait(self._in_flight, timeout=DRAIN_SECONDS)

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
                log.warning("logout: consumer paused (%s)", type(exc).__name__)
                await asyncio.sleep(1)

    async def _pull(self, js: JetStreamContext) -> None:
        await ensure_stream(js, self._settings)
        subscription = await js.pull_subscribe(
            session_ended_subject(self._settings.nats_prefix),
            durable=DURABLE,
            stream=self._settings.nats_stream,
            config=consumer_config(self._settings),
        )
        try:
            idle = 0
            while True:
                await self._slots.acquire()
                try:
                    messages = await subscription.fetch(1, timeout=FETCH_SECONDS)
                except (TimeoutError, NatsError) as exc:
                    self._slots.release()
                    if not isinstance(exc, TimeoutError):
                        raise
                    idle += 1
                    if idle % 6 == 0:  # the consumer may have gone with a recreated stream
                        await js.consumer_info(self._settings.nats_stream, DURABLE)
                    continue
                except BaseException:
                    self._slots.release()
                    raise
                idle = 0
                for message in messages:
                    task = asyncio.create_task(self._handle(message))
                    self._in_flight.add(task)
                    task.add_done_callback(self._in_flight.discard)
        finally:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()

    async def _handle(self, message: Msg) -> None:
        try:
            with consuming(FAN_OUT_SPAN, message.subject, message.headers) as span:
                await self._fan_out_once(message, span)
        except Exception as exc:  # an ack lost with NATS: JetStream redelivers after ack_wait
            log.warning("logout: event handling failed (%s)", type(exc).__name__)
        finally:
            self._slots.release()

    async def _fan_out_once(self, message: Msg, span: Span) -> None:
        try:
            event = _decode(message.data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.error("logout: unreadable event dropped")
            await message.term()
            return
        try:
            recipients = await self._fan_out.recipients(event)
        except Exception as exc:
            log.warning("logout: recipients unreadable (%s), retrying", type(exc).__name__)
            await message.nak(delay=RETRY_DELAY_SECONDS)
            return
        span.set_attribute("idp.logout.recipients", len(recipients))
        try:
            await self._fan_out.deliver(event, recipients)
        except Exception as exc:  # some POSTs may have gone out: never send them again
            log.error("logout: fan-out failed (%s)", type(exc).__name__)
        await message.ack()
