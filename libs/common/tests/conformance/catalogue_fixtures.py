"""Fixtures of the catalogue repository contracts (APIs and scopes, clients, roles,
groups): a migrated throw-away database made as the integration suite makes them,
sessions on it with a connection for every racer, and a small catalogue to grant from."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.migrate import upgrade
from idp_common.storage.db.models import User
from idp_common.storage.repos.apis import ensure_api
from libs.common.tests.integration import conftest as integration

T = TypeVar("T")
Sessions = async_sessionmaker[AsyncSession]
#: Transactions that race for one thing in a concurrency contract.
RACERS = 10
#: The permissions of the test API ``shop`` (value → description).
SHOP_SCOPES = {
    "shop:orders:read": "Read your orders",
    "shop:orders:write": "Place orders",
    "shop:items:read": "Browse items",
}
make_database = integration.make_database
fresh_database_url = integration.fresh_database_url


@pytest.fixture
async def catalogue(fresh_database_url: str) -> AsyncIterator[Sessions]:
    """Sessions on a fresh migrated database holding the ``shop`` API and its scopes."""
    await upgrade(fresh_database_url)
    engine = create_engine(fresh_database_url, pool_size=RACERS + 1)
    sessions = create_session_factory(engine)
    async with sessions.begin() as session:
        await ensure_api(session, name="shop", audience="https://shop.test", scopes=SHOP_SCOPES)
    try:
        yield sessions
    finally:
        await engine.dispose()


async def in_parallel(
    sessions: Sessions, work: Callable[[AsyncSession, int], Awaitable[T]]
) -> list[T | BaseException]:
    """``work`` in :data:`RACERS` concurrent transactions, each committed when it returns;
    every outcome, raised errors included, in the racers' order."""

    async def racer(index: int) -> T:
        async with sessions.begin() as session:
            return await work(session, index)

    return await asyncio.gather(*(racer(i) for i in range(RACERS)), return_exceptions=True)


def loser_codes(outcomes: list[object], winner: type) -> set[str | None]:
    """The codes of the losers' errors, once exactly one outcome is a ``winner``."""
    assert sum(isinstance(o, winner) for o in outcomes) == 1
    return {getattr(o, "code", None) for o in outcomes if not isinstance(o, winner)}


async def race_codes(
    sessions: Sessions, work: Callable[[AsyncSession, int], Awaitable[object]], winner: type
) -> set[str | None]:
    """Race ``work`` (:func:`in_parallel`); the :func:`loser_codes` of the outcomes."""
    return loser_codes(await in_parallel(sessions, work), winner)


async def add_person(sessions: Sessions) -> uuid.UUID:
    """A committed person with an address of their own."""
    async with sessions.begin() as session:
        user = User(email=f"p{secrets.token_hex(6)}@example.test", display_name="")
        session.add(user)
        await session.flush()
        return user.id
