"""The caller's browser sessions as ``/entity/sessions`` shows and ends them (contract §3
"session active" → "session ended"; part 4 "Entity (self-service)").

- A session's public id is its ``sid`` (base64url SHA-256 of the cookie value): it never
  reveals the cookie, and the person's ID tokens already carry it. A re-authentication
  continues the session under a new sid; tokens issued before it carry an earlier one,
  which still marks the session ``current``.
- Sessions live in Redis, a handful per person: the list is sorted and paged in memory
  (newest first), with a cursor of the same form as the database lists.
- Ending someone else's session, or one that does not exist, is the same 404, and nothing
  changes: the caller learns nothing about sessions that are not theirs.
"""

from __future__ import annotations

import binascii
import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Final

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import FieldError, InvalidArgument, NotFound
from idp_common.protocol.rfc4648_base64url import base64url_decode
from idp_common.state.sessions import BrowserSession, SessionStore
from idp_common.storage.repos.client_lookups import client_names
from idp_common.storage.repos.paging import encode_cursor
from idp_common.usecases.session_end import end_sessions

#: ``session.ended`` reason of a session the person ended themselves.
REASON: Final = "entity_revoked"
_MAX_SID_LENGTH: Final = 100


class ApplicationRef(msgspec.Struct, frozen=True, rename="camel"):
    """An application reached in the session."""

    client_id: str
    name: str


class SessionRead(msgspec.Struct, frozen=True, rename="camel"):
    id: str
    created_at: datetime
    last_seen: datetime
    ip: str | None
    user_agent: str | None
    current: bool
    applications: list[ApplicationRef]


class SessionPage(msgspec.Struct, frozen=True, rename="camel"):
    items: list[SessionRead]
    next_cursor: str | None


def _bad_cursor() -> InvalidArgument:
    return InvalidArgument(
        "cursor is not valid", errors=[FieldError("cursor", "not a cursor from this list")]
    )


def _sort_key(record: BrowserSession) -> tuple[int, str]:
    return (-record.created_at, record.sid)


def _decode_cursor(cursor: str) -> tuple[int, str]:
    try:
        raw = base64url_decode(cursor)
        values = json.loads(raw)
    # RecursionError: JSON nested deeper than the decoder's limit (``[[[[...``).
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError) as exc:
        raise _bad_cursor() from exc
    match values:
        case [int() as created, str() as sid] if not isinstance(created, bool):
            return (-created, sid)
        case _:
            raise _bad_cursor()


def _page(
    records: Sequence[BrowserSession], *, limit: int, cursor: str | None
) -> tuple[list[BrowserSession], str | None]:
    ordered = sorted(records, key=_sort_key)
    if cursor:
        after = _decode_cursor(cursor)
        ordered = [r for r in ordered if _sort_key(r) > after]
    page = ordered[:limit]
    more = len(ordered) > limit and bool(page)
    return page, encode_cursor([page[-1].created_at, page[-1].sid]) if more else None


def _moment(epoch: int) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


async def session_page(
    session: AsyncSession,
    records: Sequence[BrowserSession],
    *,
    current_sid: str | None,
    limit: int,
    cursor: str | None,
) -> SessionPage:
    """One page of the person's sessions, newest first, each with its applications."""
    page, next_cursor = _page(records, limit=limit, cursor=cursor)
    names = await client_names(session, {c for r in page for c in r.clients})
    items = [
        SessionRead(
            id=r.sid,
            created_at=_moment(r.created_at),
            last_seen=_moment(r.last_seen),
            ip=r.ip,
            user_agent=r.user_agent,
            # a token issued before a re-authentication carries an earlier sid
            current=current_sid is not None and current_sid in r.all_sids,
            applications=[ApplicationRef(c, names[c]) for c in r.clients if c in names],
        )
        for r in page
    ]
    return SessionPage(items=items, next_cursor=next_cursor)


def _not_found() -> NotFound:
    return NotFound("no session with this id", code="entity.session_not_found")


async def end_own_session(
    session: AsyncSession,
    store: SessionStore,
    user_id: uuid.UUID,
    sid: str,
    *,
    nats_prefix: str,
) -> BrowserSession:
    """End the person's session ``sid`` with the logout fan-out, in the caller's
    transaction; 404 when it is unknown or another person's (nothing changes then)."""
    record = await store.get_session_by_sid(sid) if len(sid) <= _MAX_SID_LENGTH else None
    if record is None or record.user_id != str(user_id):
        raise _not_found()
    await end_sessions(session, store, [record], reason=REASON, nats_prefix=nats_prefix)
    return record
