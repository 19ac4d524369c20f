"""The stack database's transactions, counted from ``pg_stat_database`` while the standing
bench runs (``bench/standing_cost.py``), and the stack's own background rate."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import asyncpg

from tests.harness import infra

#: Tries to connect for a reading of the transaction count, a second apart.
READ_ATTEMPTS = 60


@dataclass
class Baseline:
    """The stack database's transactions per second with nothing measured (the stack's
    own background work), read before the first round."""

    per_second: float = 0.0


class TransactionCounter:
    """Reads the stack database's transaction count over one connection to the
    ``postgres`` database, held for the whole run: the machine's PostgreSQL is shared with
    other test runs and is at times full. A lost connection is opened again, waiting up to
    :data:`READ_ATTEMPTS` seconds for room."""

    def __init__(self, db_name: str) -> None:
        self._db_name = db_name
        self._loop = asyncio.new_event_loop()
        self._conn: asyncpg.Connection | None = None

    async def _connect(self) -> asyncpg.Connection:
        for _ in range(READ_ATTEMPTS - 1):
            try:
                return await asyncpg.connect(infra.PG_ADMIN_URL)
            except asyncpg.TooManyConnectionsError:
                await asyncio.sleep(1.0)
        return await asyncpg.connect(infra.PG_ADMIN_URL)

    async def _read(self) -> int:
        if self._conn is None or self._conn.is_closed():
            self._conn = await self._connect()
        value = await self._conn.fetchval(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1",
            self._db_name,
        )
        return int(value or 0)

    def read(self) -> int:
        """The stack database's transactions so far, as ``pg_stat_database`` reports them."""
        return self._loop.run_until_complete(self._read())

    def settled(self, settle: float) -> tuple[int, float]:
        """After ``settle`` seconds of quiet: (the count, the moment it was read)."""
        time.sleep(settle)
        return self.read(), time.monotonic()

    def close(self) -> None:
        if self._conn is not None and not self._conn.is_closed():
            self._loop.run_until_complete(self._conn.close())
        self._loop.close()


def idle_baseline(counter: TransactionCounter, settle: float) -> Baseline:
    first, start = counter.settled(settle)
    last, end = counter.settled(2 * settle)
    return Baseline((last - first) / max(1e-9, end - start))
