"""Alembic environment: runs the migrations on an async (asyncpg) connection.

``idp_common.storage.db.migrate`` passes an open connection in ``config.attributes["connection"]``
(it is already inside ``AsyncConnection.run_sync``). Run through the ``alembic`` command
instead, the URL comes from the ``sqlalchemy.url`` option (``-x`` is not used) and this
module opens its own async engine; ``--sql`` (offline mode) prints the DDL.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection, pool

from idp_common.storage.db.engine import create_engine, database_url
from idp_common.storage.db.models import Base

config = context.config
target_metadata = Base.metadata


def _configure_and_run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        compare_server_default=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_async(url: str) -> None:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_configure_and_run)
    finally:
        await engine.dispose()


def _main() -> None:
    url = config.get_main_option("sqlalchemy.url")
    if context.is_offline_mode():
        context.configure(
            url=database_url(url or "postgresql://"),
            target_metadata=target_metadata,
            literal_binds=True,
            dialect_opts={"paramstyle": "named"},
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure_and_run(connection)
        return
    if not url:
        msg = "set sqlalchemy.url or run the migrations through idp_common.storage.db.migrate"
        raise RuntimeError(msg)
    asyncio.run(_run_async(url))


_main()
