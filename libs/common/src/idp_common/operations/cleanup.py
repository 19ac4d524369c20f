"""The cleanup job (contract §3, last row; §8 "Cleanup margin").

Authorization codes, refresh tokens and password-reset tokens are deleted one hour after
their ``expires_at``. A revoked token not yet expired is kept: reuse detection and
introspection need its row. The audit log is never touched; each run that deleted
something (and every run an operator asked for) leaves one ``cleanup.ran`` row.

It runs as ``idp cleanup`` and as a periodic task of the token service. A run deletes in
bounded batches (``SVC_CLEANUP_BATCH_SIZE`` rows, oldest first; ``storage.db.expiry``),
each one statement committed by itself, so a run over millions of expired rows never
holds one long transaction, its locks or its snapshot;
``SVC_CLEANUP_BATCH_PAUSE`` seconds between two batches leave the database to the token
requests for a while, when a backlog's run must take less of it.

Only one run at a time, across replicas and ``idp cleanup``: a run holds a session-level
PostgreSQL advisory lock (:data:`LOCK_KEY`) on its one connection across all its batches.
A periodic run that finds it taken skips its turn (``pg_try_advisory_lock``); an
operator's run waits for it (``pg_advisory_lock``). The lock is released at the end, and on
any error the connection is closed instead of going back to the pool, so the server
releases it; a crashed replica releases it with its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Final

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from idp_common.background import in_background
from idp_common.storage.db.engine import DriverConnection, driver_of
from idp_common.storage.db.expiry import EARLIEST, Swept
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.codes import delete_expired_codes
from idp_common.storage.repos.refresh_tokens import delete_expired_refresh_tokens
from idp_common.storage.repos.reset_tokens import delete_expired_reset_tokens

CLEANUP_MARGIN = timedelta(hours=1)
LOCK_KEY = 0x1D9_C1EA
PERIODIC_ACTOR = "service:cleanup"
#: Rows one batch deletes at most (``SVC_CLEANUP_BATCH_SIZE``'s default).
DEFAULT_BATCH_SIZE: Final = 1000
AUDIT_CLEANUP: Final = "cleanup.ran"
log = logging.getLogger("idp.cleanup")

Sweep = Callable[..., Awaitable[Swept]]
#: What a run deletes, in this order, and the name each count has in the audit row.
SWEEPS: Final[tuple[tuple[str, Sweep], ...]] = (
    ("authorization codes", delete_expired_codes),
    ("refresh tokens", delete_expired_refresh_tokens),
    ("password reset tokens", delete_expired_reset_tokens),
)


async def delete_expired(
    conn: DriverConnection,
    *,
    cutoff: datetime,
    batch_size: int,
    counts: dict[str, int],
    pause: float = 0.0,
) -> None:
    """Every sweep of :data:`SWEEPS` on ``conn`` (autocommit: each batch commits by itself),
    batch after batch until one comes back short; ``counts`` holds what the committed
    batches deleted so far (a failed run still audits them). The caller holds the lock."""
    for label, delete in SWEEPS:
        counts[label], after = 0, EARLIEST
        while True:
            swept = await delete(conn, cutoff, limit=batch_size, after=after)
            counts[label] += swept.deleted
            if swept.deleted < batch_size or swept.last is None:
                break
            after = swept.last
            if pause > 0:
                await asyncio.sleep(pause)


async def _audit(conn: AsyncConnection, entry: AuditEntry) -> None:
    async with AsyncSession(bind=conn) as session:
        write_audit(session, entry)
        await session.commit()


async def _lock(driver: DriverConnection, *, wait: bool) -> bool:
    if wait:
        await driver.execute("SELECT pg_advisory_lock($1)", LOCK_KEY)
        return True
    return bool((await driver.fetchrow("SELECT pg_try_advisory_lock($1)", LOCK_KEY))[0])


async def run_cleanup(
    engine: AsyncEngine,
    *,
    now: datetime | None = None,
    actor: str = PERIODIC_ACTOR,
    batch_size: int = DEFAULT_BATCH_SIZE,
    pause: float = 0.0,
    wait: bool = False,
) -> dict[str, int] | None:
    """One run; see the module. None when another run holds the lock and ``wait`` is off."""
    cutoff = (now or datetime.now(UTC)) - CLEANUP_MARGIN
    counts: dict[str, int] = {}
    async with engine.connect() as conn:
        driver = await driver_of(conn)  # no SQLAlchemy transaction: each statement commits
        try:
            if not await _lock(driver, wait=wait):
                return None
            await delete_expired(
                driver, cutoff=cutoff, batch_size=batch_size, counts=counts, pause=pause
            )
            if any(counts.values()) or actor != PERIODIC_ACTOR:
                detail = {"cutoff": cutoff.isoformat(), **counts}
                await _audit(conn, _entry(actor, 200, detail))
            await driver.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)
        except BaseException as exc:
            await _after_failure(engine, conn, actor, cutoff, counts, exc)
            raise
    return counts


def _entry(actor: str, status: int, detail: dict[str, object]) -> AuditEntry:
    return AuditEntry(action=AUDIT_CLEANUP, status_code=status, actor=actor, detail=detail)


async def _after_failure(
    engine: AsyncEngine,
    conn: AsyncConnection,
    actor: str,
    cutoff: datetime,
    counts: dict[str, int],
    exc: BaseException,
) -> None:
    """Close the connection (the server drops the lock with it), then audit what the
    committed batches deleted, when anything; a failure of that audit is logged only."""
    await conn.invalidate()
    if not any(counts.values()):
        return
    detail = {"cutoff": cutoff.isoformat(), **counts, "error": type(exc).__name__}
    with contextlib.suppress(Exception):
        async with engine.connect() as other:
            await _audit(other, _entry(actor, 500, detail))
            return
    log.error("cleanup: the audit row of a failed run was not written: %s", detail)


async def run_cleanup_once(
    engine: AsyncEngine,
    *,
    now: datetime | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    pause: float = 0.0,
) -> dict[str, int] | None:
    """One periodic run; None when another run holds the lock."""
    return await run_cleanup(engine, now=now, batch_size=batch_size, pause=pause)


@contextlib.asynccontextmanager
async def periodic_cleanup(
    engine: AsyncEngine,
    *,
    interval: float,
    batch_size: int = DEFAULT_BATCH_SIZE,
    pause: float = 0.0,
) -> AsyncIterator[None]:
    """Run the cleanup every ``interval`` seconds while the context is open (0: never)."""
    if interval <= 0:
        yield
        return

    async def loop() -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                counts = await run_cleanup_once(engine, batch_size=batch_size, pause=pause)
                if counts and any(counts.values()):
                    log.info("cleanup: %s", counts)
            except Exception as exc:  # a failed run must not stop the service or the loop
                log.warning("cleanup failed (%s)", type(exc).__name__)

    async with in_background(loop(), name="idp-cleanup"):
        yield
