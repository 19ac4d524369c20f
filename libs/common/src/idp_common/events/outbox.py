"""Waking the relay when an outbox row commits.

``pg_notify`` inside the writer's transaction is delivered by PostgreSQL only when that
transaction commits (and dropped if it rolls back), so the relay hears of a row exactly
when it becomes visible. Notification channels are per database, and every deployment
(and every test run) has its own database, so one channel name serves them all.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

OUTBOX_CHANNEL: Final = "idp_event_outbox"


async def announce(db_session: AsyncSession) -> None:
    """Tell a listening relay, at commit, that new outbox rows are waiting."""
    await db_session.execute(select(func.pg_notify(OUTBOX_CHANNEL, "")))
