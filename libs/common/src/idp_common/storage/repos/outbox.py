"""The transactional outbox (``event_outbox``), its one owner (docs/design.md "Events").

Contract:

- :func:`add_event` inserts an event in the caller's transaction, so it commits (or rolls
  back) with the change it announces. With a ``dedupe_key`` the insert is ``ON CONFLICT DO
  NOTHING`` on that unique key: of any number of writers (concurrent ones included) one
  writes the event; the others wait for its transaction and then write nothing.
  ``traceparent`` (W3C Trace Context) is the writer's trace, kept for the relay to send
  along as a header; None when the writer is not traced.
- :func:`announce` is ``pg_notify`` in the caller's transaction: PostgreSQL delivers it on
  commit only, so a listening relay hears of the rows exactly when they become visible.
- :func:`stage_event` is :func:`add_event` for a caller that cannot await (the audit
  write, :func:`idp_common.storage.repos.audit.write_audit`, which stages the webhook
  events of its row): an ORM row in the session's transaction, inserted at its next flush
  and announced by that flush (one ``pg_notify`` per staged row, folded into one
  notification by PostgreSQL at commit).
- :func:`claim_pending` locks up to ``limit`` unpublished rows, oldest first, ``FOR UPDATE
  SKIP LOCKED``: concurrent relays never claim the same row, and a claimed row stays
  claimed until its claimer's transaction ends. :func:`mark_published` marks what was
  published in that transaction; a row is marked once, never deleted here.
- :func:`backlog` counts the unpublished rows and the age of the oldest, by the database's
  clock (one statement over the partial index of unpublished rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

import msgspec
from sqlalchemy import Connection, func, inspect, select
from sqlalchemy import event as orm_event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapper

from idp_common.storage.db.engine import Db, statements
from idp_common.storage.db.models import OutboxEvent

#: Notification channels are per database and every deployment (and test run) has its
#: own database, so one channel name serves them all.
OUTBOX_CHANNEL: Final = "idp_event_outbox"


class Backlog(msgspec.Struct, frozen=True):
    pending: int
    oldest_age_seconds: float  # 0 when nothing waits


class PendingEvent(msgspec.Struct, frozen=True):
    id: int
    subject: str
    payload: bytes  # the JSON document
    created_at: datetime
    traceparent: str | None = None


class StagedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event to write with :func:`stage_event`."""

    subject: str
    payload: dict[str, Any]
    traceparent: str | None = None


#: ``InstanceState.info`` mark of a row :func:`stage_event` added (other ORM rows are not
#: announced: their writer decides).
_ANNOUNCE: Final = "idp_common.outbox.announce"


def stage_event(session: AsyncSession, event: StagedEvent) -> None:
    """Add ``event`` to ``session``'s transaction (see the module text)."""
    row = OutboxEvent(subject=event.subject, payload=event.payload, traceparent=event.traceparent)
    inspect(row).info[_ANNOUNCE] = True
    session.add(row)


@orm_event.listens_for(OutboxEvent, "after_insert")
def _announce_staged(_mapper: Mapper[Any], connection: Connection, row: OutboxEvent) -> None:
    """:func:`announce` for a row :func:`stage_event` added, in the flush that inserts it."""
    if inspect(row).info.get(_ANNOUNCE):
        connection.execute(select(func.pg_notify(OUTBOX_CHANNEL, "")))


async def add_event(
    db: Db,
    subject: str,
    payload: dict[str, Any],
    *,
    dedupe_key: str | None = None,
    traceparent: str | None = None,
) -> bool:
    """Write an event to publish on ``subject``; False when ``dedupe_key`` was taken."""
    row = await statements(db).fetchrow(
        "INSERT INTO event_outbox (subject, payload, dedupe_key, traceparent)"
        " VALUES ($1, CAST($2::text AS jsonb), $3, $4)"
        " ON CONFLICT (dedupe_key) DO NOTHING RETURNING id",
        subject,
        msgspec.json.encode(payload).decode(),
        dedupe_key,
        traceparent,
    )
    return row is not None


async def announce(db: Db) -> None:
    """Tell a listening relay, at commit, that new outbox rows are waiting."""
    await statements(db).fetchrow("SELECT pg_notify($1, '')", OUTBOX_CHANNEL)


async def claim_pending(db: Db, limit: int) -> list[PendingEvent]:
    """Lock and return up to ``limit`` unpublished events, oldest first (see the module)."""
    rows = await statements(db).fetch(
        "SELECT id, subject, payload::text, created_at, traceparent FROM event_outbox"
        " WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED",
        limit,
    )
    return [
        PendingEvent(
            ident, subject, msgspec.json.encode(msgspec.json.decode(doc)), created, traceparent
        )
        for ident, subject, doc, created, traceparent in rows
    ]


async def mark_published(db: Db, ids: Sequence[int]) -> None:
    """Mark these claimed events published (now)."""
    await statements(db).execute(
        "UPDATE event_outbox SET published_at = now() WHERE id = ANY($1::bigint[])", list(ids)
    )


async def backlog(db: Db) -> Backlog:
    """Unpublished events now, and how long the oldest has waited."""
    row = await statements(db).fetchrow(
        "SELECT count(*), COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8"
        " FROM event_outbox WHERE published_at IS NULL"
    )
    return Backlog(int(row[0]), max(0.0, float(row[1])))
