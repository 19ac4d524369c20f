"""A logout's trace context travels with its event: ending a session inside a
traced request keeps the request's ``traceparent`` with the outbox row (not in the
payload), and the relay sends it as the message's ``traceparent`` header. This process
runs no OpenTelemetry SDK, as an untraced relay would: the header is then the writer's
own, unchanged (a traced consumer still continues the writer's trace)."""

from __future__ import annotations

import msgspec
import pytest
from nats.aio.client import Client
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.config import Settings
from idp_common.events import OutboxRelay
from idp_common.events.nats_link import NatsLink
from idp_common.events.trace_context import consuming, current_traceparent
from idp_common.state.sessions import SessionStore
from idp_common.usecases.session_end import end_sessions
from libs.common.tests.integration.outbox_relay.support import (
    outbox,
    signed_in,
    subject_of,
    webhook_subject_of,
)

pytestmark = pytest.mark.integration

TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
SPAN_ID = 0x00F067AA0BA902B7
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


async def test_the_request_trace_travels_with_the_event(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    link: NatsLink,
    observer: Client,
    redis_client: Redis,
    prefix: str,
) -> None:
    store = SessionStore(redis_client, prefix)
    traced, untraced = (
        await signed_in(store, "user-a", ["app-1"]),
        await signed_in(store, "user-b", []),
    )
    request = NonRecordingSpan(
        SpanContext(TRACE_ID, SPAN_ID, is_remote=True, trace_flags=TraceFlags(1))
    )
    with trace.use_span(request):
        assert current_traceparent() == TRACEPARENT
        async with sessions.begin() as db:
            await end_sessions(
                db, store, [traced], reason="logout", nats_prefix=settings.nats_prefix
            )
    assert current_traceparent() is None
    async with sessions.begin() as db:
        await end_sessions(db, store, [untraced], reason="logout", nats_prefix=settings.nats_prefix)

    rows = await outbox(sessions, subject_of(settings))
    assert [(row.payload["sid"], row.traceparent) for row in rows] == [
        (traced.sid, TRACEPARENT),
        (untraced.sid, None),
    ]
    assert all("traceparent" not in row.payload for row in rows)  # the payload is the contract

    # the webhook event of each session's end carries the same trace
    webhook = await outbox(sessions, webhook_subject_of(settings))
    assert [row.traceparent for row in webhook] == [TRACEPARENT, None]
    assert await OutboxRelay(settings, sessions, link).publish_pending() == 4
    js = observer.jetstream()
    first = await js.get_msg(settings.nats_stream, 1)
    second = await js.get_msg(settings.nats_stream, 3)
    assert msgspec.json.decode(first.data or b"")["sid"] == traced.sid
    assert (first.headers or {}).get("traceparent") == TRACEPARENT
    assert "traceparent" not in (second.headers or {})
    # what the dispatcher does with it: its span continues the request's trace
    with consuming("logout fan-out", first.subject, first.headers):
        assert current_traceparent() == TRACEPARENT  # no SDK here: the parent itself
