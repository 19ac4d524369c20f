"""asyncpg's own connection pool, for the statements on the token endpoints' hot paths.

The hot statements (the spends in ``idp_common.storage.repos.refresh_tokens`` and
``idp_common.storage.repos.codes``, the code's insert, ``token_service.repos.people``'s person
reads) are plain SQL; the reads and the insert commit by themselves, and the two spends
run in a short ``BEGIN`` … ``COMMIT`` (:meth:`HotPool.transaction`) that commits only
after Redis has recorded the new access token (docs/security.md, attack 5). Through
SQLAlchemy's async engine, checking a connection out and in cost more CPU than the
statement's own round trip (a greenlet switch, the pool's bookkeeping and events);
asyncpg's pool hands out the same kind of connection for a fraction of that.

Two choices make a checkout cheap:

- No reset query on release. asyncpg's default runs ``pg_advisory_unlock_all()``,
  ``CLOSE ALL``, ``UNLISTEN *`` and ``RESET ALL`` (one round trip) every time a
  connection goes back. The hot statements take no advisory lock, open no cursor,
  listen to nothing and set nothing, so :func:`_keep_session_state` does nothing; asyncpg still
  rolls back a transaction left open before calling it, so a connection never returns
  to the pool inside one.
- Connections are opened on demand (``min_size=0``) and the pool itself is created at
  the first use, inside the worker's event loop: nothing connects while a service
  starts, as with the engine (a service starts degraded when Postgres is down).

A connection Postgres closed (a restart, ``pg_terminate_backend``) is replaced by asyncpg
at the next checkout once the server's notice has reached it, as with the engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final, NamedTuple, Protocol, TypeVar

import asyncpg
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.storage.db.engine import DriverConnection, database_url

T_co = TypeVar("T_co", covariant=True)

#: Connections a worker keeps for the hot statements, beside the engine's pool (the default
#: of ``SVC_DB_HOT_POOL_SIZE``).
HOT_POOL_SIZE: Final = 16


async def _keep_session_state(_connection: Any) -> None:
    """Release hook: nothing to undo (see the module)."""


def asyncpg_dsn(url: str) -> str:
    """The libpq-style address asyncpg takes, from a ``postgresql[+asyncpg]://`` URL."""
    return database_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class PoolUsage(NamedTuple):
    """A pool's connections now: in use, open and idle, and the most it opens."""

    in_use: int
    idle: int
    most: int


class HotPool:
    """A lazily created ``asyncpg.Pool``. One per worker (per event loop)."""

    def __init__(self, url: str, *, max_size: int = HOT_POOL_SIZE, timeout: float) -> None:
        self._dsn = asyncpg_dsn(url)
        self._max_size = max_size
        self._timeout = timeout
        self._pool: Any = None
        self._creating: asyncio.Lock | None = None

    async def _get(self) -> Any:
        if self._pool is not None:
            return self._pool
        if self._creating is None:
            self._creating = asyncio.Lock()
        async with self._creating:
            if self._pool is None:
                self._pool = await asyncpg.create_pool(
                    self._dsn,
                    min_size=0,
                    max_size=self._max_size,
                    timeout=self._timeout,
                    reset=_keep_session_state,
                )
        return self._pool

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[DriverConnection]:
        """A connection outside any transaction; each statement commits by itself."""
        pool = await self._get()
        async with pool.acquire() as conn:
            yield conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[DriverConnection]:
        """A connection inside a transaction: committed when the block ends, rolled back
        when it raises. Plain ``BEGIN``/``COMMIT`` statements: asyncpg's transaction
        object costs about 40 µs more CPU per use for nothing these statements need."""
        async with self.connection() as conn:
            await conn.execute("BEGIN")
            try:
                yield conn
            except BaseException:
                await conn.execute("ROLLBACK")
                raise
            await conn.execute("COMMIT")

    def usage(self) -> PoolUsage:
        """The pool's connections now (none before its first use); for the metrics."""
        if self._pool is None:
            return PoolUsage(0, 0, self._max_size)
        idle: int = self._pool.get_idle_size()
        return PoolUsage(self._pool.get_size() - idle, idle, self._max_size)

    async def aclose(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()


class Database(Protocol):
    """Where a repository runs: the hot pool for its one-round-trip statements, the session
    factory for the transactions that also write an audit row (``Resources`` is one)."""

    hot: HotPool
    sessions: async_sessionmaker[AsyncSession]


class JoinedRead(Protocol[T_co]):
    """A read a repository joins to the row it spends, so that one statement spends and
    reads (the token service reads the person: ``token_service.repos.people.PERSON``).

    ``columns``: a select list over the ``users`` row aliased ``u`` (NULLs when absent);
    ``parse`` reads it back from ``row[start:]``, None when the person is absent."""

    @property
    def columns(self) -> str: ...

    def parse(self, row: Any, start: int) -> T_co | None: ...
