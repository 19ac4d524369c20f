"""Ending browser sessions (spec part 3: logout, ``DELETE /entity/sessions/{id}``, password
change, an administrator ending all of a person's sessions; DESIGN.md "Events").

:func:`end_sessions` does, for each session, inside the caller's open transaction:

1. deletes it from Redis; a session already gone (another request ended it a moment ago)
   is skipped, so each session's end is announced once;
2. revokes the session's refresh tokens
   (``UPDATE refresh_tokens SET revoked_at = now() WHERE session_sid = … AND revoked_at IS
   NULL``);
3. adds an outbox row, subject ``{nats_prefix}.session.ended``, payload
   ``{"user_id", "sid", "clients", "reason"}`` (:class:`SessionEnded`) that the relay
   publishes and the logout dispatcher turns into back-channel logout tokens, and a
   ``pg_notify`` that wakes the relay when the transaction commits;

then flushes. The caller commits.

Order: Redis is cleared before the caller commits. If the commit then fails, the person
is signed out without the tokens being revoked or the applications told: the safe
direction. The other order could leave a live session behind a changed password when
Redis fails after the commit. A Redis failure raises, so the caller's transaction rolls
back and nothing is written to the database.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Final, NamedTuple

import msgspec
from sqlalchemy import func, update
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.db.models import OutboxEvent, RefreshToken
from idp_common.events.outbox import announce
from idp_common.sessions import BrowserSession, SessionStore

__all__ = [
    "SESSION_ENDED",
    "Ended",
    "SessionEnded",
    "end_person_sessions",
    "end_sessions",
    "revoke_user_refresh_tokens",
]

SESSION_ENDED: Final = "session.ended"


class SessionEnded(msgspec.Struct, frozen=True, kw_only=True):
    """Payload of ``{prefix}.session.ended`` (``clients``: client_ids reached)."""

    user_id: str
    sid: str
    clients: list[str]
    reason: str


class Ended(NamedTuple):
    """What :func:`end_sessions` did: sessions it ended (not those already gone) and
    refresh tokens it revoked with them."""

    sessions: int
    refresh_tokens: int


def session_ended_subject(nats_prefix: str) -> str:
    return f"{nats_prefix}.{SESSION_ENDED}"


async def end_sessions(
    db_session: AsyncSession,
    store: SessionStore,
    sessions: Sequence[BrowserSession],
    *,
    reason: str,
    nats_prefix: str,
) -> Ended:
    """End ``sessions``; see the module text."""
    revoked = ended = 0
    subject = session_ended_subject(nats_prefix)
    for record in sessions:
        if not await store.end_session(record):
            continue
        result = await db_session.execute(
            update(RefreshToken)
            .where(RefreshToken.session_sid == record.sid, RefreshToken.revoked_at.is_(None))
            .values(revoked_at=func.now())
        )
        revoked += int(getattr(result, "rowcount", 0) or 0)
        event = SessionEnded(
            user_id=record.user_id, sid=record.sid, clients=list(record.clients), reason=reason
        )
        db_session.add(OutboxEvent(subject=subject, payload=msgspec.to_builtins(event)))
        ended += 1
    if ended:
        await announce(db_session)
    await db_session.flush()
    return Ended(ended, revoked)


async def end_person_sessions(
    db_session: AsyncSession,
    store: SessionStore,
    user_id: uuid.UUID,
    *,
    reason: str,
    nats_prefix: str,
) -> Ended:
    """End every live session of a person (a password change or reset, an administrator's
    revocation, a deleted or disabled account) as :func:`end_sessions` does; return
    (sessions ended, refresh tokens revoked with them)."""
    sessions = await store.list_sessions(str(user_id))
    return await end_sessions(db_session, store, sessions, reason=reason, nats_prefix=nats_prefix)


async def revoke_user_refresh_tokens(db_session: AsyncSession, user_id: uuid.UUID) -> int:
    """Revoke every live refresh token of a person, whatever session issued it (also
    those of sessions that already expired in Redis, and ``offline_access`` ones)."""
    result = await db_session.execute(
        update(RefreshToken)
        .where(RefreshToken.user_id == user_id, RefreshToken.revoked_at.is_(None))
        .values(revoked_at=func.now())
    )
    return int(getattr(result, "rowcount", 0) or 0)
