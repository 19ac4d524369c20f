"""HotPool against the local Postgres: statements commit by themselves, a transaction
left open never returns to the pool, a terminated connection is replaced, and nothing
connects before the first use."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from idp_common.storage.db.hot_pool import HotPool, asyncpg_dsn
from tests.harness import infra

from .conftest import MakeDatabase

pytestmark = pytest.mark.integration


async def _pool(make_database: MakeDatabase) -> tuple[HotPool, str]:
    url = await make_database()
    dsn = asyncpg_dsn(url)
    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute("CREATE TABLE t (v int)")
    finally:
        await admin.close()
    return HotPool(url, max_size=1, timeout=5.0), dsn


async def _count(dsn: str) -> int:
    conn = await asyncpg.connect(dsn)
    try:
        value: int = await conn.fetchval("SELECT count(*) FROM t")
        return value
    finally:
        await conn.close()


def test_the_dsn_is_the_url_without_the_driver_name() -> None:
    dsn = asyncpg_dsn("postgresql+asyncpg://idp:s3cret@db.example:5433/idp?ssl=require")
    assert dsn == "postgresql://idp:s3cret@db.example:5433/idp?ssl=require"
    assert asyncpg_dsn("postgresql://u@h/d") == "postgresql://u@h/d"


async def test_a_statement_commits_by_itself(make_database: MakeDatabase) -> None:
    pool, dsn = await _pool(make_database)
    try:
        async with pool.connection() as conn:
            await conn.execute("INSERT INTO t VALUES (1)")
        assert await _count(dsn) == 1  # seen from another connection: committed
    finally:
        await pool.aclose()


async def test_a_transaction_left_open_is_rolled_back_before_reuse(
    make_database: MakeDatabase,
) -> None:
    pool, dsn = await _pool(make_database)
    try:
        async with pool.connection() as conn:
            await conn.execute("BEGIN")
            await conn.execute("INSERT INTO t VALUES (1)")
        async with pool.connection() as conn:  # max_size=1: the same connection
            row = await conn.fetchrow("SELECT count(*) AS n FROM t")
        assert row["n"] == 0
        assert await _count(dsn) == 0
    finally:
        await pool.aclose()


async def test_a_connection_postgres_terminated_is_replaced(make_database: MakeDatabase) -> None:
    pool, dsn = await _pool(make_database)
    try:
        async with pool.connection() as conn:
            pid = (await conn.fetchrow("SELECT pg_backend_pid() AS pid"))["pid"]
        admin = await asyncpg.connect(dsn)
        try:
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        finally:
            await admin.close()
        await asyncio.sleep(0.2)  # the server's goodbye reaches the idle connection
        async with pool.connection() as conn:
            row = await conn.fetchrow("SELECT pg_backend_pid() AS pid")
        assert row["pid"] != pid
    finally:
        await pool.aclose()


async def test_nothing_connects_before_the_first_use() -> None:
    pool = HotPool(f"postgresql://postgres@127.0.0.1:{infra.closed_port()}/x", timeout=1.0)
    await pool.aclose()  # never used: nothing to close, no error
    with pytest.raises(OSError):
        async with pool.connection():
            pass
