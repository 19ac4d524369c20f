"""The cleanup job (spec part 3, last row; §8 "Cleanup margin").

Authorization codes, refresh tokens and password-reset tokens are deleted one hour after
their ``expires_at``. A revoked token not yet expired is kept: reuse detection and
introspection need its row. The audit log is never touched.

It runs as ``idp cleanup`` and as a periodic task of the token service. Every replica
runs the loop, but a run first takes a PostgreSQL transaction-scoped advisory lock with
``pg_try_advisory_xact_lock``: while one replica cleans, the others skip their turn, so
only one replica runs it at a time, and a crashed replica releases the lock with its
connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.background import in_background
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.codes import delete_expired_codes
from idp_common.storage.repos.refresh_tokens import delete_expired_refresh_tokens
from idp_common.storage.repos.reset_tokens import delete_expired_reset_tokens

CLEANUP_MARGIN = timedelta(hours=1)
LOCK_KEY = 0x1D9_C1EA
PERIODIC_ACTOR = "service:cleanup"
log = logging.getLogger("idp.cleanup")


async def delete_expired(session: AsyncSession, *, now: datetime, actor: str) -> dict[str, int]:
    """Delete what is more than an hour past expiry, in the caller's transaction."""
    cutoff = now - CLEANUP_MARGIN
    counts = {
        "authorization codes": await delete_expired_codes(session, cutoff),
        "refresh tokens": await delete_expired_refresh_tokens(session, cutoff),
        "password reset tokens": await delete_expired_reset_tokens(session, cutoff),
    }
    if any(counts.values()) or actor != PERIODIC_ACTOR:
        write_audit(
            session,
            AuditEntry(
                action="cleanup.ran",
                status_code=200,
                actor=actor,
                detail={"cutoff": cutoff.isoformat(), **counts},
            ),
        )
    return counts


async def run_cleanup_once(
    sessions: async_sessionmaker[AsyncSession], *, now: datetime | None = None
) -> dict[str, int] | None:
    """One periodic run; None when another replica holds the lock."""
    async with sessions.begin() as session:
        if not await session.scalar(select(func.pg_try_advisory_xact_lock(LOCK_KEY))):
            return None
        return await delete_expired(session, now=now or datetime.now(UTC), actor=PERIODIC_ACTOR)


@contextlib.asynccontextmanager
async def periodic_cleanup(
    sessions: async_sessionmaker[AsyncSession], *, interval: float
) -> AsyncIterator[None]:
    """Run the cleanup every ``interval`` seconds while the context is open (0: never)."""
    if interval <= 0:
        yield
        return

    async def loop() -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                counts = await run_cleanup_once(sessions)
                if counts and any(counts.values()):
                    log.info("cleanup: %s", counts)
            except Exception as exc:  # a failed run must not stop the service or the loop
                log.warning("cleanup failed (%s)", type(exc).__name__)

    async with in_background(loop(), name="idp-cleanup"):
        yield
