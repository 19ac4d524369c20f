"""What wakes the relay: a committed row at once, a rolled-back one never; ``relay_once``."""

from __future__ import annotations

import asyncio
import time

import msgspec
import pytest
from nats.aio.client import Client
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.config import Settings
from idp_common.events import OutboxRelay, announce
from idp_common.events.nats_link import NatsLink
from idp_common.events.relay import relay_once
from idp_common.storage.db.models import OutboxEvent
from libs.common.tests.integration.outbox_relay.support import (
    add_rows,
    outbox,
    payload,
    relay_started,
    stream_count,
    subject_of,
    wait_for_count,
)
from tests.harness import infra

pytestmark = pytest.mark.integration


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
