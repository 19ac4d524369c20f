"""The audit log (``audit_events``), its one owner: every security decision and every write
leaves one row, and the administration API reads them newest first with keyset paging
(docs/design.md "Lists").

``write_audit`` adds the row to the caller's transaction, so the record and the change
it describes commit (or roll back) together, and with it the webhook events the row
announces when the session's factory was given ``audit_events``
(``idp_common.storage.db.engine.create_session_factory``; the map is
``idp_common.events.webhook_events``): one more insert per announced event, staged
through the outbox's owner (``repos.outbox.stage_event``). ``record_audit`` is for decisions that
change nothing else (a refused request), in a transaction of its own;
``record_refusal`` the same for a refusal, which stands even when the audit store is down
(the failure is logged instead).
Rows never carry secrets: no password, code or token, only identifiers. Rows are only
inserted, never updated or deleted.
"""

from __future__ import annotations

import binascii
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.protocol.rfc4648_base64url import base64url_decode, base64url_encode
from idp_common.storage.db.engine import AUDIT_EVENTS_INFO
from idp_common.storage.db.models import AuditEvent
from idp_common.storage.repos.outbox import StagedEvent, stage_event
from idp_common.storage.repos.paging import bad_cursor, fits_integer, storable_moment

log = logging.getLogger("idp.audit")


class AuditEntry(msgspec.Struct, frozen=True, kw_only=True):
    action: str
    status_code: int
    ip: str | None = None
    actor: str | None = None
    target_type: str | None = None
    target: str | None = None
    detail: dict[str, Any] = msgspec.field(default_factory=dict)


def _storable(value: Any) -> Any:
    """``value`` with NUL shown as U+FFFD: PostgreSQL text and jsonb cannot hold it, and a
    refusal's row must not be lost because the refused request carried one."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_storable(k): _storable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_storable(v) for v in value]
    return value


def write_audit(session: AsyncSession, entry: AuditEntry) -> None:
    """Add the row, and the events it announces, to ``session``'s open transaction."""
    stored = AuditEntry(
        action=entry.action,
        status_code=entry.status_code,
        ip=_storable(entry.ip),
        actor=_storable(entry.actor),
        target_type=entry.target_type,
        target=_storable(entry.target),
        detail=_storable(dict(entry.detail)),
    )
    session.add(
        AuditEvent(
            action=stored.action,
            status_code=stored.status_code,
            ip=stored.ip,
            actor=stored.actor,
            target_type=stored.target_type,
            target=stored.target,
            detail=stored.detail,
        )
    )
    announced: Callable[[AuditEntry], Sequence[StagedEvent]] | None = session.info.get(
        AUDIT_EVENTS_INFO
    )
    if announced is not None:
        for event in announced(stored):
            stage_event(session, event)


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


class AuditRead(msgspec.Struct, frozen=True, rename="camel"):
    id: int
    action: str
    status_code: int = msgspec.field(name="status_code")
    occurred_at: datetime = msgspec.field(name="occurred_at")
    ip: str | None = None
    actor: str | None = None
    target_type: str | None = None
    target: str | None = None
    detail: dict[str, Any] = msgspec.field(default_factory=dict)


class AuditFilter(msgspec.Struct, frozen=True, kw_only=True):
    action: str | None = None
    actor: str | None = None
    target: str | None = None
    since: datetime | None = None
    until: datetime | None = None


class AuditPage(msgspec.Struct, frozen=True, rename="camel"):
    items: list[AuditRead]
    next_cursor: str | None


def encode_cursor(occurred_at: datetime, row_id: int) -> str:
    raw = f"{occurred_at.isoformat()}|{row_id}".encode()
    return base64url_encode(raw)


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    """Raise InvalidArgument naming ``cursor`` for anything this module did not make: a
    row id past ``bigint`` or a moment past year 9999 in UTC too (the driver would refuse
    them)."""
    try:
        raw = base64url_decode(cursor).decode()
        when, _, row_id = raw.partition("|")
        at, number = datetime.fromisoformat(when), int(row_id)
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise bad_cursor() from exc
    if not fits_integer(number) or not storable_moment(at):
        raise bad_cursor()
    return at, number


async def list_audit(
    session: AsyncSession, filters: AuditFilter, *, limit: int, cursor: str | None
) -> AuditPage:
    """One page of events matching every filter given, ordered newest first."""
    query = select(AuditEvent)
    if filters.action is not None:
        query = query.where(AuditEvent.action == filters.action)
    if filters.actor is not None:
        query = query.where(AuditEvent.actor == filters.actor)
    if filters.target is not None:
        query = query.where(AuditEvent.target == filters.target)
    if filters.since is not None:
        query = query.where(AuditEvent.occurred_at >= filters.since)
    if filters.until is not None:
        query = query.where(AuditEvent.occurred_at < filters.until)
    if cursor:
        at, row_id = decode_cursor(cursor)
        query = query.where(tuple_(AuditEvent.occurred_at, AuditEvent.id) < tuple_(at, row_id))
    query = query.order_by(AuditEvent.occurred_at.desc(), AuditEvent.id.desc()).limit(limit + 1)
    rows = (await session.scalars(query)).all()
    items = [
        AuditRead(
            id=r.id,
            action=r.action,
            status_code=r.status_code,
            occurred_at=r.occurred_at,
            ip=r.ip,
            actor=r.actor,
            target_type=r.target_type,
            target=r.target,
            detail=dict(r.detail or {}),
        )
        for r in rows[:limit]
    ]
    more = len(rows) > limit
    next_cursor = encode_cursor(items[-1].occurred_at, items[-1].id) if more and items else None
    return AuditPage(items=items, next_cursor=next_cursor)
