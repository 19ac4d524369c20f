"""Ending browser sessions (contract §3: logout, ``DELETE /entity/sessions/{id}``, password
change, an administrator ending all of a person's sessions; docs/design.md "Events").

:func:`end_sessions` writes, for each session, inside the caller's open transaction
(through the tables' owners, ``storage.repos.outbox`` and ``storage.repos.refresh_tokens``):

1. an outbox row, subject ``{nats_prefix}.session.ended``, payload
   ``{"user_id", "sid", "clients", "reason"}`` (:class:`SessionEnded`) that the relay
   publishes and the logout dispatcher turns into back-channel logout tokens (``clients``
   read from the session's applications set at that moment), inserted with
   ``dedupe_key = "session.ended:<sid>"`` and ``ON CONFLICT DO NOTHING``, with the
   request's trace (``traceparent``, when traced) for the dispatcher to continue;
2. the withdrawal of the codes issued in the session and not exchanged yet
   (``storage.repos.codes.withdraw_unused_codes``: a code of an ended session buys no
   tokens), then the revocation of the session's refresh tokens (``revoke_by_sessions``:
   those issued under the session's sid and those it had before a re-authentication
   continued it);
3. for each session it ended (not one another request ended first), the webhook event
   ``session.ended`` (subject ``{nats_prefix}.webhook.session.ended``,
   :mod:`idp_common.events.webhook_events`), a message of its own beside the one the
   logout dispatcher consumes: that one's shape is the dispatcher's, this one's the
   webhook receivers';
4. a ``pg_notify`` that wakes the relay when the transaction commits;

then flushes. The caller commits; once the commit has succeeded the sessions are deleted
from Redis (an ``after_commit`` hook on the caller's session runs the deletion before
``commit()`` returns; a Redis failure there raises from the commit, and the caller answers
503).

Order, and why (docs/security.md, attack 6): the database first, Redis after the commit.

- The transaction fails: nothing is written and the session is still in Redis, so the
  person is still signed in and sees it; a retried logout (the same cookie) finds the
  session and ends it properly. (Redis first, the other order used before, signed the
  person out while their refresh tokens stayed valid and no application was told, and the
  retry found nothing left to end.)
- Redis fails after the commit: the tokens are revoked and the applications will be told;
  the session lingers in Redis until a retry (the same logout, or the next password change
  or administrator action) deletes it, or it idles out after 24 hours.

Exactly one event per session: the outbox's unique ``dedupe_key`` is the session's
tombstone. Of two transactions ending the same session at once, the second's insert waits
for the first and then finds the key taken: it writes no event and counts no ended session
(its refresh-token update finds nothing left to revoke). A retry after the Redis step failed
finds the key taken the same way, revokes whatever was issued since (nothing, normally) and
deletes the session from Redis. A caller ending all of a person's sessions
(:mod:`idp_common.usecases.credential_change`) passes them in ``sid`` order, so two requests
ending the same person's sessions never wait on each other in a cycle.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Final, NamedTuple

import msgspec
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session, SessionTransaction
from sqlalchemy.util import await_only

from idp_common.events import webhook_events as webhooks
from idp_common.events.trace_context import current_traceparent
from idp_common.state.sessions import BrowserSession, SessionStore
from idp_common.storage.repos.codes import withdraw_unused_codes
from idp_common.storage.repos.outbox import add_event, announce
from idp_common.storage.repos.refresh_tokens import revoke_by_sessions, revoke_person_tokens

__all__ = [
    "SESSION_ENDED",
    "Ended",
    "SessionEnded",
    "end_sessions",
    "revoke_user_refresh_tokens",
]

SESSION_ENDED: Final = "session.ended"
#: ``Session.info`` key of the Redis deletions waiting for the commit.
_PENDING: Final = "idp_common.usecases.session_end.pending"


class SessionEnded(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Payload of ``{prefix}.session.ended`` (``clients``: client_ids reached).

    ``client_sids``: for a client whose ID tokens carry other sids than ``sid`` (it was
    reached before a re-authentication continued the session under a new id), the sids
    it was given; its logout tokens carry those. Absent (the usual case): ``sid``."""

    user_id: str
    sid: str
    clients: list[str]
    reason: str
    client_sids: dict[str, list[str]] = msgspec.field(default_factory=dict)

    def sids_of(self, client_id: str) -> list[str]:
        """The sid(s) to put in this client's logout token(s)."""
        return self.client_sids.get(client_id) or [self.sid]


class Ended(NamedTuple):
    """What :func:`end_sessions` did: sessions it ended (not those another request ended
    first) and refresh tokens it revoked with them."""

    sessions: int
    refresh_tokens: int


def session_ended_subject(nats_prefix: str) -> str:
    return f"{nats_prefix}.{SESSION_ENDED}"


def dedupe_key(sid: str) -> str:
    """The outbox key that makes a session's end one event."""
    return f"{SESSION_ENDED}:{sid}"


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
    webhook = webhooks.webhook_subject(nats_prefix, webhooks.SESSION_ENDED)
    traceparent = current_traceparent()
    for seen in sessions:
        record = await store.with_applications(seen)  # as reached until now
        event_ = SessionEnded(
            user_id=record.user_id,
            sid=record.sid,
            clients=list(record.clients),
            reason=reason,
            client_sids=record.client_sids,
        )
        payload = msgspec.to_builtins(event_)
        if await add_event(
            db_session, subject, payload, dedupe_key=dedupe_key(record.sid), traceparent=traceparent
        ):
            ended += 1
            data = webhooks.session_ended_data(record.user_id, record.sid, reason, record.clients)
            announced = webhooks.webhook_payload(webhooks.SESSION_ENDED, data)
            await add_event(db_session, webhook, announced, traceparent=traceparent)
        sids = _sids(record)
        # codes first: an exchange in flight commits its refresh token before this
        # returns, so the revocation below sees it
        await withdraw_unused_codes(db_session, sids)
        revoked += await revoke_by_sessions(db_session, sids, datetime.now(UTC))
    if ended:
        await announce(db_session)
    await db_session.flush()
    _forget_after_commit(db_session, store, sessions)
    return Ended(ended, revoked)


def _sids(record: BrowserSession) -> list[str]:
    """Every sid the session's refresh tokens may carry: its own, those it had before a
    re-authentication, and those its applications were given."""
    given = (sid for sids in record.client_sids.values() for sid in sids)
    return list(dict.fromkeys([*record.all_sids, *given]))


def _forget_after_commit(
    db_session: AsyncSession, store: SessionStore, sessions: Sequence[BrowserSession]
) -> None:
    """Delete ``sessions`` from Redis once the caller's transaction has committed (never
    when it rolls back)."""
    if not sessions:
        return
    sync = db_session.sync_session
    pending: list[tuple[SessionStore, list[BrowserSession]]] | None = sync.info.get(_PENDING)
    if pending is None:
        pending = sync.info[_PENDING] = []
        event.listen(sync, "after_commit", _after_commit)
        event.listen(sync, "after_transaction_end", _after_transaction_end)
    pending.append((store, list(sessions)))


def _after_commit(sync: Session) -> None:
    if sync.in_nested_transaction():  # a savepoint released: the real commit is later
        return
    pending: list[tuple[SessionStore, list[BrowserSession]]] = sync.info.get(_PENDING) or []
    work, pending[:] = list(pending), []
    for store, sessions in work:
        # Runs inside the commit's greenlet (AsyncSession.commit), so it may await.
        await_only(store.forget_sessions(sessions))


def _after_transaction_end(sync: Session, transaction: SessionTransaction) -> None:
    """Rolled back or closed without a commit (a commit has emptied the list already)."""
    if transaction.parent is None:
        pending: list[tuple[SessionStore, list[BrowserSession]]] = sync.info.get(_PENDING) or []
        pending.clear()


async def revoke_user_refresh_tokens(db_session: AsyncSession, user_id: uuid.UUID) -> int:
    """Revoke every live refresh token of a person, whatever session issued it (also
    those of sessions that already expired in Redis, and ``offline_access`` ones)."""
    return await revoke_person_tokens(db_session, user_id, datetime.now(UTC))
