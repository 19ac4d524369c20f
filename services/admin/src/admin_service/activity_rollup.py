"""The activity dashboard's roll-up in the background (docs/activity-dashboard.md): every
admin worker rolls the closed hours of the last 7 days into ``activity_hours`` shortly after
it starts and every few minutes, so that no request pays for a cold roll-up of millions of
audit rows. A worker that finds another rolling skips its turn (``pg_try_advisory_xact_lock``);
a request that finds hours not rolled still rolls them itself, waiting for the lock."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.background import in_background
from idp_common.storage.repos.activity import RANGES, roll_up

log = logging.getLogger("idp.admin.activity")

#: Seconds after start before the first roll-up, and between two.
FIRST_AFTER: Final = 5.0
EVERY: Final = 300.0


async def roll_once(sessions: async_sessionmaker[AsyncSession]) -> int:
    async with sessions.begin() as session:
        return await roll_up(session, datetime.now(UTC), max(RANGES.values()), wait=False)


async def _loop(sessions: async_sessionmaker[AsyncSession]) -> None:
    await asyncio.sleep(FIRST_AFTER)
    while True:
        try:
            rolled = await roll_once(sessions)
            if rolled:
                log.info("activity roll-up: %d hours", rolled)
        except Exception as exc:  # the database away: the next turn (or a request) rolls
            log.warning("activity roll-up failed (%s)", type(exc).__name__)
        await asyncio.sleep(EVERY)


@contextlib.asynccontextmanager
async def rolling_up(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[None]:
    async with in_background(_loop(sessions), name="activity roll-up"):
        yield
