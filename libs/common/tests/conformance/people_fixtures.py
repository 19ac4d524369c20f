"""Fixtures of the people and credential repository contracts: a migrated throw-away
database (made as the integration suite makes them), sessions on it, and a person.
Imported by name into each ``test_*_repo.py`` of this directory."""

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
from idp_common.storage.repos.users import create_user
from libs.common.tests.integration import conftest as integration

T = TypeVar("T")
Sessions = async_sessionmaker[AsyncSession]
#: How many transactions race for one thing in the concurrency contracts.
RACERS = 20
# The integration suite's database fixtures, by the names the fixtures below ask for.
make_database = integration.make_database
fresh_database_url = integration.fresh_database_url


@pytest.fixture
async def sessions(fresh_database_url: str) -> AsyncIterator[Sessions]:
    """Sessions on a fresh database upgraded to head, with a connection for every racer."""
    await upgrade(fresh_database_url)
    engine = create_engine(fresh_database_url, pool_size=RACERS)
    try:
        yield create_session_factory(engine)
    finally:
        await engine.dispose()


async def new_person(sessions: Sessions, *, password_hash: str | None = None) -> uuid.UUID:
    """A person with a unique address (and ``password_hash`` when given), committed."""
    async with sessions.begin() as session:
        account = await create_user(
            session,
            email=f"p{secrets.token_hex(6)}@example.test",
            username=None,
            display_name="",
            password_hash=password_hash,
        )
    return account.id


@pytest.fixture
async def person(sessions: Sessions) -> uuid.UUID:
    return await new_person(sessions)


async def race(
    sessions: Sessions, work: Callable[[AsyncSession, int], Awaitable[T]]
) -> list[T | BaseException]:
    """Run ``work`` in :data:`RACERS` concurrent transactions (each commits on success);
    every outcome, a raised exception included."""

    async def one(index: int) -> T:
        async with sessions.begin() as session:
            return await work(session, index)

    return await asyncio.gather(*(one(i) for i in range(RACERS)), return_exceptions=True)
