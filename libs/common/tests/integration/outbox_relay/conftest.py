"""Fixtures of the outbox relay tests: settings, sessions, a NATS link and an observer."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

import nats
import pytest
from nats.aio.client import Client
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from idp_common.config import Settings
from idp_common.events.nats_link import NatsLink
from idp_common.storage.db.engine import create_session_factory
from libs.common.tests.integration.outbox_relay.support import (
    NATS_URL,
)
from tests.harness import infra


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
