"""The relay publishes ended sessions in order, once each (also with two relays), and one
outbox row per ended session."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import msgspec
import pytest
from nats.aio.client import Client
from nats.js.errors import NotFoundError
from redis.asyncio import Redis
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.config import Settings
from idp_common.events import OutboxRelay
from idp_common.events.nats_link import NatsLink
from idp_common.state.sessions import BrowserSession, SessionStore
from idp_common.storage.db.models import OutboxEvent
from idp_common.usecases.session_end import end_sessions
from libs.common.tests.integration.outbox_relay.support import (
    add_rows,
    outbox,
    signed_in,
    stream_count,
    subject_of,
    tap,
    webhook_subject_of,
)

pytestmark = pytest.mark.integration


async def test_ended_sessions_are_published_in_order_and_marked(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    link: NatsLink,
    observer: Client,
    redis_client: Redis,
    prefix: str,
) -> None:
    store = SessionStore(redis_client, prefix)
    records = [
        await signed_in(store, "user-a", ["app-1", "app-2"]),
        await signed_in(store, "user-a", []),
        await signed_in(store, "user-b", ["app-3"]),
    ]
    async with sessions.begin() as db:
        await end_sessions(db, store, records, reason="logout", nats_prefix=settings.nats_prefix)
    js = observer.jetstream()
    with pytest.raises(NotFoundError):
        await js.stream_info(settings.nats_stream)

    relay = OutboxRelay(settings, sessions, link)
    assert await relay.publish_pending() == 6  # each session's end and its webhook event

    info = await js.stream_info(settings.nats_stream)
    assert info.config.subjects == [f"{settings.nats_prefix}.>"]
    assert info.state.messages == 6
    messages = [await js.get_msg(settings.nats_stream, seq) for seq in range(1, 7)]
    assert [m.subject for m in messages] == [subject_of(settings), webhook_subject_of(settings)] * 3
    rows = await outbox(sessions, subject_of(settings))
    assert [row.payload["sid"] for row in rows] == [r.sid for r in records]
    for message, row, record in zip(messages[::2], rows, records, strict=True):
        assert message.subject == subject_of(settings) == row.subject
        assert msgspec.json.decode(message.data or b"") == row.payload
        assert row.payload == {
            "user_id": record.user_id,
            "sid": record.sid,
            "clients": record.clients,
            "reason": "logout",
        }
        assert row.published_at is not None
    assert await relay.publish_pending() == 0  # nothing left
    assert await stream_count(js, settings) == 6


async def test_a_row_published_again_is_not_a_second_message(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    link: NatsLink,
    observer: Client,
) -> None:
    """The relay died between publishing and marking: JetStream drops the second copy."""
    await add_rows(sessions, settings, 2, notify=False)
    seen = await tap(observer, settings)
    relay = OutboxRelay(settings, sessions, link)
    assert await relay.publish_pending() == 2
    async with sessions.begin() as db:
        await db.execute(text("UPDATE event_outbox SET published_at = NULL"))

    assert await relay.publish_pending() == 2  # sent again ...
    js = observer.jetstream()
    assert await stream_count(js, settings) == 2  # ... and dropped as duplicates
    assert len(await seen.wait_for(4)) == 4  # both copies did go out
    ids = seen.msg_ids()
    assert ids[:2] == ids[2:] and None not in ids and ids[0] != ids[1]
    assert all(row.published_at is not None for row in await outbox(sessions))


async def test_two_relays_publish_each_row_exactly_once(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    make_link: Callable[[], Awaitable[NatsLink]],
    observer: Client,
) -> None:
    rows = 300
    await add_rows(sessions, settings, rows, notify=False)
    seen = await tap(observer, settings)
    first = OutboxRelay(settings, sessions, await make_link())
    second = OutboxRelay(settings, sessions, await make_link())

    totals = await asyncio.gather(first.publish_pending(), second.publish_pending())

    assert sum(totals) == rows, totals
    js = observer.jetstream()
    assert await stream_count(js, settings) == rows
    assert len(await seen.wait_for(rows)) == rows
    await asyncio.sleep(0.2)  # a copy sent twice would have arrived by now
    # Not one row sent twice, not even as a duplicate the stream dropped.
    assert len(seen.messages) == rows
    assert len(set(seen.msg_ids()) - {None}) == rows
    async with sessions() as db:
        pending = await db.scalar(
            select(func.count()).select_from(OutboxEvent).where(OutboxEvent.published_at.is_(None))
        )
    assert pending == 0


async def test_two_requests_ending_the_same_session_write_one_outbox_row(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    redis_client: Redis,
    prefix: str,
) -> None:
    store = SessionStore(redis_client, prefix)
    record = await signed_in(store, "user-r", ["app-1"])
    # Each request read the session before either ended it.
    seen_by_first = await store.get_session_by_sid(record.sid)
    seen_by_second = await store.get_session_by_sid(record.sid)
    assert seen_by_first is not None and seen_by_second is not None

    async def end(seen: BrowserSession) -> int:
        async with sessions.begin() as db:
            ended = await end_sessions(
                db, store, [seen], reason="logout", nats_prefix=settings.nats_prefix
            )
        return ended.sessions

    assert sorted(await asyncio.gather(end(seen_by_first), end(seen_by_second))) == [0, 1]
    assert await end(record) == 0  # and a third, after both committed

    rows = await outbox(sessions, subject_of(settings))
    assert len(rows) == 1
    assert len(await outbox(sessions, webhook_subject_of(settings))) == 1  # its event, once
    assert rows[0].payload == {
        "user_id": "user-r",
        "sid": record.sid,
        "clients": ["app-1"],
        "reason": "logout",
    }
    assert await store.get_session_by_sid(record.sid) is None
