"""Helpers shared by the outbox relay tests: rows added, streams counted, a tap on the subject."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.client import JetStreamContext
from nats.js.errors import NotFoundError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.config import Settings
from idp_common.events import announce
from idp_common.state.sessions import BrowserSession, SessionStore
from idp_common.storage.db.models import OutboxEvent
from tests.harness import infra

NATS_URL = infra.NATS_URL


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


async def outbox(
    sessions: async_sessionmaker[AsyncSession], subject: str | None = None
) -> list[Any]:
    """The outbox rows, oldest first; with ``subject``, those on it only (ending a session
    also writes its webhook event)."""
    query = select(
        OutboxEvent.id,
        OutboxEvent.subject,
        OutboxEvent.payload,
        OutboxEvent.published_at,
        OutboxEvent.traceparent,
    ).order_by(OutboxEvent.id)
    if subject is not None:
        query = query.where(OutboxEvent.subject == subject)
    async with sessions() as db:
        return list((await db.execute(query)).all())


def webhook_subject_of(settings: Settings) -> str:
    return f"{settings.nats_prefix}.webhook.session.ended"


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
