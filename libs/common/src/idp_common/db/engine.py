"""The asyncpg engine and the session factory every repository call runs in."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

_ASYNC_DRIVER = "postgresql+asyncpg"
_PLAIN_DRIVERS = frozenset({"postgresql", "postgres"})


def database_url(url: str) -> URL:
    """Parse ``url`` and point it at the asyncpg driver.

    ``postgresql://`` and ``postgres://`` become ``postgresql+asyncpg://``; any other
    driver is refused with ``ValueError`` (the schema and the repositories are written
    for Postgres through asyncpg only).
    """
    parsed = make_url(url)
    if parsed.drivername in _PLAIN_DRIVERS:
        return parsed.set(drivername=_ASYNC_DRIVER)
    if parsed.drivername != _ASYNC_DRIVER:
        msg = f"unsupported database URL scheme {parsed.drivername!r}: use postgresql://"
        raise ValueError(msg)
    return parsed


def create_engine(url: str, **kw: Any) -> AsyncEngine:
    """Create the async engine for ``url`` (see ``database_url``).

    ``pool_pre_ping`` is on by default so a connection dropped by a Postgres restart is
    replaced instead of failing a request; keyword arguments go to
    ``create_async_engine`` and override the defaults.
    """
    kw.setdefault("pool_pre_ping", True)
    return create_async_engine(database_url(url), **kw)


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions bound to ``engine``.

    ``expire_on_commit=False``: rows loaded in a transaction stay readable after it
    commits, which async code needs (a lazy refresh would need I/O outside ``await``).
    """
    return async_sessionmaker(engine, expire_on_commit=False)
