"""The audit writer: every security decision and every write leaves one row.

``write_audit`` adds the row to the caller's transaction, so the record and the change
it describes commit (or roll back) together. ``record_audit`` is for decisions that
change nothing else (a refused request), in a transaction of its own.
Rows never carry secrets: no password, code or token, only identifiers.
"""

from __future__ import annotations

from typing import Any

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.db.models import AuditEvent


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
