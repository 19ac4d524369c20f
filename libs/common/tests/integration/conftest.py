"""Fixtures of the schema integration tests: throw-away Postgres databases.

The admin connection defaults to ``postgresql://postgres@127.0.0.1:5432/postgres``; set
``IDP_TEST_PG_ADMIN_URL`` to use another server. Each database is named
``idp_t_<random hex>`` and dropped ``WITH (FORCE)`` after the test, even a failed one.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg  # type: ignore[import-untyped]
import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from idp_common.db.engine import create_engine
from idp_common.db.migrate import upgrade

DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"

MakeDatabase = Callable[[], Awaitable[str]]


def _admin_url() -> str:
    """The admin URL as asyncpg wants it (a ``+driver`` suffix is dropped)."""
    url = make_url(os.environ.get("IDP_TEST_PG_ADMIN_URL", DEFAULT_ADMIN_URL))
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


async def _admin_execute(sql: str) -> None:
    admin = await asyncpg.connect(_admin_url())
    try:
        await admin.execute(sql)
    finally:
        await admin.close()


@pytest.fixture
async def make_database() -> AsyncIterator[MakeDatabase]:
    """Factory of empty databases (``postgresql+asyncpg://`` URLs), all dropped at teardown."""
    names: list[str] = []

    async def make() -> str:
        name = f"idp_t_{secrets.token_hex(8)}"
        await _admin_execute(f'CREATE DATABASE "{name}"')
        names.append(name)
        url = make_url(_admin_url()).set(drivername="postgresql+asyncpg", database=name)
        return url.render_as_string(hide_password=False)

    try:
        yield make
    finally:
        for name in names:
            await _admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
