"""Run the Alembic migrations in ``idp_common.storage.db.migrations`` from code.

Alembic is configured programmatically: no ``alembic.ini`` is needed. The migrations run
on a connection of an async engine, handed to ``env.py`` through
``Config.attributes["connection"]`` and driven with ``AsyncConnection.run_sync``.
Each run holds a transaction-scoped advisory lock, so services that start together and
all call ``upgrade`` apply each revision once.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import NullPool

from .engine import create_engine

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
"""``script_location``: the ``idp_common/storage/db/migrations`` package directory."""

_LOCK_KEY = int.from_bytes(b"idp:migr", "big")
"""Key of the ``pg_advisory_xact_lock`` taken while migrating (fits a signed bigint)."""


def alembic_config() -> Config:
    """An Alembic ``Config`` for the migrations package, built without an ini file."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    """The newest revision of the migrations (there is a single head)."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships a revision
        msg = "no migration revisions found"
        raise RuntimeError(msg)
    return head


def older_revisions(revision: str) -> set[str]:
    """Every revision below ``revision`` (its ancestors), without itself."""
    script = ScriptDirectory.from_config(alembic_config())
    return {r.revision for r in script.walk_revisions(base="base", head=revision)} - {revision}


async def upgrade(url: str, revision: str = "head") -> None:
    """Upgrade the database at ``url`` to ``revision``, in one transaction."""
    await _run(url, "upgrade", revision)


async def downgrade(url: str, revision: str = "base") -> None:
    """Downgrade the database at ``url`` to ``revision`` (``base`` drops every table)."""
    await _run(url, "downgrade", revision)


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision recorded in ``alembic_version``; None if the table is missing or empty."""
    async with engine.connect() as connection:
        return await connection.run_sync(_current_revision)


def _current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def _run(url: str, direction: str, revision: str) -> None:
    engine = create_engine(url, poolclass=NullPool, pool_pre_ping=False)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
            await connection.run_sync(_run_command, direction, revision)
    finally:
        await engine.dispose()


def _run_command(connection: Connection, direction: str, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    if direction == "upgrade":
        command.upgrade(config, revision)
    else:
        command.downgrade(config, revision)
