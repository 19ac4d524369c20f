"""The audit writer: every security decision and every write leaves one row.

``write_audit`` adds the row to the caller's transaction, so the record and the change
it describes commit (or roll back) together. ``record_audit`` is for decisions that
change nothing else (a refused request), in a transaction of its own;
``record_refusal`` the same for a refusal, which stands even when the audit store is down
(the failure is logged instead).
Rows never carry secrets: no password, code or token, only identifiers.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.db.models import AuditEvent

log = logging.getLogger("idp.audit")


class AuditEntry(msgspec.Struct, frozen=True, kw_only=True):
    action: str
    status_code: int
    ip: str | None = None
    actor: str | None = None
    target_type: str | None = None
    target: str | None = None
    detail: dict[str, Any] = msgspec.field(default_factory=dict)


def write_audit(session: AsyncSession, entry: AuditEntry) -> None:
    """Add the row to ``session``'s open transaction."""
    session.add(
        AuditEvent(
            action=entry.action,
            status_code=entry.status_code,
            ip=entry.ip,
            actor=entry.actor,
            target_type=entry.target_type,
            target=entry.target,
            detail=dict(entry.detail),
        )
    )


async def record_audit(sessions: async_sessionmaker[AsyncSession], entry: AuditEntry) -> None:
    """Write one row in a transaction of its own."""
    async with sessions.begin() as session:
        write_audit(session, entry)


async def record_refusal(sessions: async_sessionmaker[AsyncSession], entry: AuditEntry) -> None:
    """:func:`record_audit` of a refusal: the refusal stands even if the row cannot be
    written (the audit store is down), so the failure is logged, never raised."""
    try:
        await record_audit(sessions, entry)
    except Exception as exc:
        log.error("audit write failed for %s (%s)", entry.action, type(exc).__name__)
