"""Fixtures of the integration tests: throw-away Postgres databases, and a Redis client
with a key prefix of the test's own (its keys are deleted afterwards).

The admin connection defaults to ``postgresql://postgres@127.0.0.1:5432/postgres``; set
``IDP_TEST_PG_ADMIN_URL`` to use another server. Each database is named
``idp_t_<random hex>`` and dropped ``WITH (FORCE)`` after the test, even a failed one.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine

from idp_common.storage.db.engine import create_engine
from idp_common.storage.db.migrate import upgrade
from tests.harness import infra

MakeDatabase = Callable[[], Awaitable[str]]


@pytest.fixture
async def make_database() -> AsyncIterator[MakeDatabase]:
    """Factory of empty databases (``postgresql+asyncpg://`` URLs), all dropped at teardown.

    Created and dropped by the test harness's functions, so every suite names and
    reaches its databases the same way.
    """
    names: list[str] = []

    async def make() -> str:
        name = f"idp_t_{secrets.token_hex(8)}"
        url = await infra.create_database(name)
        names.append(name)
        return url

    try:
        yield make
    finally:
        for name in names:
            await infra.drop_database(name)


@pytest.fixture
async def fresh_database_url(make_database: MakeDatabase) -> str:
    """URL of a new, empty database, e.g. ``postgresql+asyncpg://postgres@127.0.0.1:5432/idp_t_…``."""
    return await make_database()


@pytest.fixture
async def migrated_engine(fresh_database_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine on a fresh database upgraded to head."""
    await upgrade(fresh_database_url)
    engine = create_engine(fresh_database_url)
    try:
        yield engine
    finally:
        await engine.dispose()


REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
async def redis_client() -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def prefix(redis_client: Redis) -> AsyncIterator[str]:
    """A key prefix no other test uses; its keys are deleted after the test."""
    value = f"test-{secrets.token_hex(8)}:"
    yield value
    keys = [key async for key in redis_client.scan_iter(match=f"{value}*", count=500)]
    if keys:
        await redis_client.delete(*keys)
