"""Tokens issued, counted in memory and written to the audit log as summaries (the
activity dashboard, docs/activity-dashboard.md).

The token endpoint's hot path writes nothing to the database (docs/performance.md): each
issued token adds one to a per-worker count by ``(grant_type, client_id)``, a dict update.
A background task writes one ``tokens.issued`` audit row per pair with
``detail {grant, clientId, count}`` every ``SVC_ACTIVITY_FLUSH_SECONDS`` and once more at
shutdown. A failed write keeps the counts for the next try, bounded by
:data:`MAX_PAIRS` pairs (a pair past the bound is dropped and logged, never the request).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.background import in_background
from idp_common.storage.repos.activity import ACTION_TOKENS_ISSUED
from idp_common.storage.repos.audit import AuditEntry, write_audit

log = logging.getLogger("idp.token.activity")

#: Most (grant, client) pairs held between two writes (clients are authenticated, so real
#: traffic stays far below; the bound holds when the database stays away for long).
MAX_PAIRS: Final = 10_000


class IssuedCounts:
    """The counts of one worker since its last successful write."""

    def __init__(self, max_pairs: int = MAX_PAIRS) -> None:
        self._counts: dict[tuple[str, str], int] = {}
        self._max_pairs = max_pairs
        self.dropped = 0  # tokens not counted because the bound was reached

    def add(self, grant_type: str, client_id: str, tokens: int = 1) -> None:
        key = (grant_type, client_id)
        held = self._counts.get(key)
        if held is None and len(self._counts) >= self._max_pairs:
            self.dropped += tokens
            return
        self._counts[key] = (held or 0) + tokens

    def take(self) -> dict[tuple[str, str], int]:
        """The counts so far; the worker counts afresh from now."""
        taken, self._counts = self._counts, {}
        return taken

    def give_back(self, counts: dict[tuple[str, str], int]) -> None:
        """A write failed: ``counts`` count again, with what came meanwhile."""
        for (grant_type, client_id), tokens in counts.items():
            self.add(grant_type, client_id, tokens)


def summary_entries(counts: dict[tuple[str, str], int]) -> list[AuditEntry]:
    return [
        AuditEntry(
            action=ACTION_TOKENS_ISSUED,
            status_code=200,
            target_type="client",
            target=client_id,
            detail={"grant": grant_type, "clientId": client_id, "count": tokens},
        )
        for (grant_type, client_id), tokens in sorted(counts.items())
        if tokens > 0
    ]


async def flush(counts: IssuedCounts, sessions: async_sessionmaker[AsyncSession]) -> int:
    """Write the counts as summary rows in one transaction; how many rows. On failure the
    counts are given back (and the error logged)."""
    taken = counts.take()
    if not taken:
        return 0
    entries = summary_entries(taken)
    try:
        async with sessions.begin() as session:
            for entry in entries:
                write_audit(session, entry)
    except BaseException as exc:  # the database away (or a stop): counted again next time
        counts.give_back(taken)
        if not isinstance(exc, Exception):
            raise
        log.warning("issued-token counts not written; kept for the next try", exc_info=True)
        return 0
    if counts.dropped:
        log.warning("%d issued tokens not counted (more than %d pairs)", counts.dropped, MAX_PAIRS)
        counts.dropped = 0
    return len(entries)


async def _every(
    counts: IssuedCounts, sessions: async_sessionmaker[AsyncSession], seconds: float
) -> None:
    while True:
        await asyncio.sleep(seconds)
        await flush(counts, sessions)


@contextlib.asynccontextmanager
async def flushing(
    counts: IssuedCounts, sessions: async_sessionmaker[AsyncSession], seconds: float
) -> AsyncIterator[None]:
    """Write the counts every ``seconds`` while the block runs, and once when it ends."""
    async with in_background(_every(counts, sessions, seconds), name="issued-token counts"):
        yield
    await flush(counts, sessions)
