"""The asyncpg engine, the session factory, and the one way a repository's SQL runs on
either of Postgres's two paths: a hot-pool connection or an ORM session's transaction
(:func:`statements`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

_ASYNC_DRIVER = "postgresql+asyncpg"
_PLAIN_DRIVERS = frozenset({"postgresql", "postgres"})


class DriverConnection(Protocol):
    """The part of an ``asyncpg.Connection`` the hot paths use (asyncpg has no types)."""

    async def fetchrow(self, query: str, *args: Any) -> Any: ...

    async def fetch(self, query: str, *args: Any) -> Any: ...

    async def execute(self, query: str, *args: Any) -> str: ...


class _InSession:
    """A :class:`DriverConnection` whose statements run in an ORM session's transaction.

    The asyncpg dialect's parameter style is asyncpg's own (``$1``), so a repository's
    SQL text passes through unchanged, and SQLAlchemy begins the session's transaction
    before the first statement as it does for its own."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def _run(self, query: str, args: tuple[Any, ...]) -> Any:
        connection = await self._session.connection()
        return await connection.exec_driver_sql(query, args)

    async def fetchrow(self, query: str, *args: Any) -> Any:
        return (await self._run(query, args)).first()

    async def fetch(self, query: str, *args: Any) -> Any:
        return (await self._run(query, args)).all()

    async def execute(self, query: str, *args: Any) -> str:
        result = await self._run(query, args)
        return f"{query.split(None, 1)[0].upper()} {getattr(result, 'rowcount', 0)}"


#: Where a repository statement runs: an ORM session (its transaction) or a hot connection.
Db = AsyncSession | DriverConnection


def statements(db: Db) -> DriverConnection:
    """Where a repository's SQL runs: the hot connection itself, or the session's
    transaction."""
    return _InSession(db) if isinstance(db, AsyncSession) else db


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

    A pooled connection that Postgres closed (a restart, an administrator's
    ``pg_terminate_backend``) is replaced at checkout instead of failing a request:
    asyncpg notices the closed socket as soon as the server drops it, so the check
    (:func:`_replace_closed`) costs no round trip. SQLAlchemy's ``pool_pre_ping`` would
    cost three (``BEGIN``, ``;``, ``ROLLBACK``) on every checkout; pass
    ``pool_pre_ping=True`` to have it anyway. Keyword arguments go to
    ``create_async_engine`` and override the defaults.

    ``hide_parameters``: an error's message never carries the statement's values (an
    email, a password hash, a token digest) into a log (docs/security.md).
    """
    engine = create_async_engine(database_url(url), **{"hide_parameters": True, **kw})
    if not kw.get("pool_pre_ping"):
        event.listen(engine.sync_engine, "checkout", _replace_closed)
    return engine


def _replace_closed(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """Pool ``checkout`` hook: a connection whose socket is closed is discarded and the
    pool hands out another one (``DisconnectionError`` makes it retry)."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    if driver is not None and driver.is_closed():
        raise DisconnectionError("the database closed this connection")


async def driver_of(connection: AsyncConnection) -> DriverConnection:
    """The asyncpg connection under ``connection`` (in whatever transaction it is in)."""
    raw = await connection.get_raw_connection()
    driver: DriverConnection | None = raw.driver_connection
    if driver is None:
        raise RuntimeError("the pooled connection has no driver connection")
    return driver


#: ``Session.info`` key of the function that turns an audit row into outbox events
#: (:func:`idp_common.storage.repos.audit.write_audit`; see :func:`create_session_factory`).
AUDIT_EVENTS_INFO = "idp_common.audit_events"


def create_session_factory(
    engine: AsyncEngine, *, audit_events: Callable[[Any], Sequence[Any]] | None = None
) -> async_sessionmaker[AsyncSession]:
    """Sessions bound to ``engine``.

    ``expire_on_commit=False``: rows loaded in a transaction stay readable after it
    commits, which async code needs (a lazy refresh would need I/O outside ``await``).

    ``audit_events``: what the audit rows written in these sessions announce, as outbox
    rows in the same transaction (the services pass
    ``idp_common.events.webhook_events.outbox_events(settings.nats_prefix)``; a factory
    without it writes audit rows only). Kept in each session's ``info``.
    """
    info = {} if audit_events is None else {AUDIT_EVENTS_INFO: audit_events}
    return async_sessionmaker(engine, expire_on_commit=False, info=info)
