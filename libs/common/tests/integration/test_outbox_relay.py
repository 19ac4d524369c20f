"""The outbox and its relay to JetStream (DESIGN.md "Events"; spec part 3, a session's end
is announced once) against the local Postgres and NATS.

Each test has a database, a NATS prefix and a stream of its own; the stream is deleted
afterwards. What the relay published is read back from the stream, and a plain NATS
subscription on the subject counts every publish, including ones the stream drops as
duplicates.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import msgspec
import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.client import JetStreamContext
from nats.js.errors import NotFoundError
from redis.asyncio import Redis
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from idp_common.config import Settings
from idp_common.events import OutboxRelay, announce
from idp_common.events.nats_link import NatsLink
from idp_common.events.relay import relay_once
from idp_common.state.sessions import BrowserSession, SessionStore
from idp_common.storage.db.engine import create_session_factory
from idp_common.storage.db.models import OutboxEvent
from idp_common.usecases.session_end import end_sessions
from tests.harness import infra

pytestmark = pytest.mark.integration

NATS_URL = infra.NATS_URL


# --- fixtures ----------------------------------------------------------------------------------


@pytest.fixture
async def settings(
    fresh_database_url: str, migrated_engine: AsyncEngine
) -> AsyncIterator[Settings]:
    """Settings of this test: its migrated database, its own NATS prefix and stream."""
    value = Settings(
        database_url=fresh_database_url,
        nats_url=NATS_URL,
        nats_prefix=f"relay-t-{secrets.token_hex(5)}",
    )
    try:
        yield value
    finally:
        await infra.delete_nats_stream(value.nats_stream)


@pytest.fixture
def sessions(migrated_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_factory(migrated_engine)


@pytest.fixture
async def make_link() -> AsyncIterator[Callable[[], Awaitable[NatsLink]]]:
    """Factory of connected NatsLinks (as a service holds one), closed at teardown."""
    links: list[NatsLink] = []

    async def make() -> NatsLink:
        link = NatsLink(NATS_URL, name="relay-test")
        links.append(link)
        link.start()
        await link.wait_connected(5)
        return link

    try:
        yield make
    finally:
        for link in links:
            await link.close()


@pytest.fixture
async def link(make_link: Callable[[], Awaitable[NatsLink]]) -> NatsLink:
    return await make_link()


@pytest.fixture
async def observer() -> AsyncIterator[Client]:
    """A NATS connection of the test's own, to read the stream and watch the subject."""
    client = await nats.connect(NATS_URL, connect_timeout=2, max_reconnect_attempts=0)
    try:
        yield client
    finally:
        await client.close()


# --- helpers -----------------------------------------------------------------------------------


def subject_of(settings: Settings) -> str:
    return f"{settings.nats_prefix}.session.ended"


def payload(n: int) -> dict[str, Any]:
    return {"user_id": f"user-{n}", "sid": f"sid-{n}", "clients": [f"app-{n}"], "reason": "logout"}


async def add_rows(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, count: int, *, notify: bool
) -> None:
    async with sessions.begin() as db:
        db.add_all(
            OutboxEvent(subject=subject_of(settings), payload=payload(n)) for n in range(count)
        )
        if notify:
            await announce(db)


async def stream_count(js: JetStreamContext, settings: Settings) -> int:
    info = await js.stream_info(settings.nats_stream)
    return int(info.state.messages)


async def wait_for_count(
    js: JetStreamContext, settings: Settings, expected: int, within: float
) -> float:
    """Seconds until the stream holds ``expected`` messages; fails after ``within``."""
    started = time.monotonic()
    while True:
        try:
            count = await stream_count(js, settings)
        except NotFoundError:
            count = 0
        if count >= expected:
            return time.monotonic() - started
        if time.monotonic() - started > within:
            pytest.fail(f"the stream holds {count} messages after {within}s, not {expected}")
        await asyncio.sleep(0.02)


class Tap:
    """A plain NATS subscription: every message published on the subject, also those the
    stream drops as duplicates."""

    def __init__(self) -> None:
        self.messages: list[Msg] = []
        self._arrived = asyncio.Event()

    async def record(self, message: Msg) -> None:
        self.messages.append(message)
        self._arrived.set()

    async def wait_for(self, count: int, within: float = 2.0) -> list[Msg]:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within):
                while len(self.messages) < count:
                    self._arrived.clear()
                    await self._arrived.wait()
        return list(self.messages)

    def msg_ids(self) -> list[str | None]:
        return [m.headers.get("Nats-Msg-Id") if m.headers else None for m in self.messages]


async def tap(observer: Client, settings: Settings) -> Tap:
    callback = Tap()
    await observer.subscribe(subject_of(settings), cb=callback.record)
    await observer.flush()
    return callback


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[Any]:
    async with sessions() as db:
        rows = await db.execute(
            select(
                OutboxEvent.id, OutboxEvent.subject, OutboxEvent.payload, OutboxEvent.published_at
            ).order_by(OutboxEvent.id)
        )
        return list(rows.all())


async def signed_in(store: SessionStore, user_id: str, clients: list[str]) -> BrowserSession:
    """A browser session as the sign-in API makes it, having reached ``clients``."""
    _, record = await store.create_session(
        user_id=user_id,
        auth_time=int(time.time()),
        amr=["pwd"],
        acr="urn:idp:acr:1fa",
        ip="127.0.0.1",
        user_agent="tests",
    )
    for client_id in clients:
        await store.touch(record, client_id=client_id)
    return record


# --- publication -------------------------------------------------------------------------------


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
    assert await relay.publish_pending() == 3

    info = await js.stream_info(settings.nats_stream)
    assert info.config.subjects == [f"{settings.nats_prefix}.>"]
    assert info.state.messages == 3
    rows = await outbox(sessions)
    assert [row.payload["sid"] for row in rows] == [r.sid for r in records]
    for seq, (row, record) in enumerate(zip(rows, records, strict=True), start=1):
        message = await js.get_msg(settings.nats_stream, seq)
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
    assert await stream_count(js, settings) == 3


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


# --- the LISTEN wake-up ------------------------------------------------------------------------


async def relay_started(observer: Client, settings: Settings) -> None:
    """Wait for the relay's first turn (its listener connected and woke it: the stream
    exists), then a little more so that the first turn is over."""
    deadline = time.monotonic() + 5
    while True:
        try:
            await observer.jetstream().stream_info(settings.nats_stream)
            break
        except NotFoundError:
            if time.monotonic() > deadline:
                pytest.fail("the relay did not start")
            await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)


async def test_a_committed_row_wakes_the_relay_at_once(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    link: NatsLink,
    observer: Client,
) -> None:
    js = observer.jetstream()
    relay = OutboxRelay(settings, sessions, link, poll_seconds=30)
    async with relay.running():
        await relay_started(observer, settings)
        # A row committed without a notification waits for the 30 s poll ...
        await add_rows(sessions, settings, 1, notify=False)
        await asyncio.sleep(1.0)
        assert await stream_count(js, settings) == 0
        # ... one committed with announce() is published at once, with the waiting one.
        await add_rows(sessions, settings, 1, notify=True)
        waited = await wait_for_count(js, settings, 2, within=5)
    assert waited < 2.0, f"published after {waited:.2f}s"
    assert all(row.published_at is not None for row in await outbox(sessions))


async def test_a_rolled_back_transaction_wakes_nothing_and_publishes_nothing(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    link: NatsLink,
    observer: Client,
) -> None:
    js = observer.jetstream()
    relay = OutboxRelay(settings, sessions, link, poll_seconds=30)
    async with relay.running():
        await relay_started(observer, settings)
        await add_rows(sessions, settings, 1, notify=False)  # waiting for a wake-up
        async with sessions() as db:
            db.add(OutboxEvent(subject=subject_of(settings), payload=payload(99)))
            await announce(db)
            await db.flush()
            await db.rollback()
        await asyncio.sleep(1.5)
        # The notification of a rolled-back transaction is never delivered: the relay
        # slept on, the committed row still waits, the rolled-back one never existed.
        assert await stream_count(js, settings) == 0
        rows = await outbox(sessions)
        assert [row.payload["sid"] for row in rows] == ["sid-0"]
        assert rows[0].published_at is None


# --- idp relay (relay_once) -----------------------------------------------------------------


async def test_relay_once_publishes_what_waits_and_returns_the_count(
    settings: Settings, sessions: async_sessionmaker[AsyncSession], observer: Client
) -> None:
    await add_rows(sessions, settings, 5, notify=False)
    assert await relay_once(settings) == 5
    assert await stream_count(observer.jetstream(), settings) == 5
    assert all(row.published_at is not None for row in await outbox(sessions))
    assert await relay_once(settings) == 0


async def test_relay_once_raises_timeout_when_nats_does_not_answer(
    settings: Settings, sessions: async_sessionmaker[AsyncSession]
) -> None:
    await add_rows(sessions, settings, 1, notify=False)
    unreachable = msgspec.structs.replace(
        settings, nats_url=f"nats://127.0.0.1:{infra.closed_port()}"
    )
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await relay_once(unreachable, connect_seconds=0.5)
    assert time.monotonic() - started < 3
    assert [row.published_at for row in await outbox(sessions)] == [None]  # still waiting


# --- a session's end is announced once ----------------------------------------------------


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

    rows = await outbox(sessions)
    assert len(rows) == 1
    assert rows[0].subject == subject_of(settings)
    assert rows[0].payload == {
        "user_id": "user-r",
        "sid": record.sid,
        "clients": ["app-1"],
        "reason": "logout",
    }
    assert await store.get_session_by_sid(record.sid) is None
