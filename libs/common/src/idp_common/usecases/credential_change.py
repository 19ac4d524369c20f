"""A change of a person's credentials that ends what was issued before it
(docs/security.md "Tokens end when what they stand for ends").

The changes: a password set or reset, a second factor, passkey or face removed, an
administrator ending every session, the account disabled or deleted. :func:`credentials_changed`
does, inside the caller's transaction:

1. ``users.credentials_changed_at`` = the transaction's time: a sign-in from before it can
   no longer step up (:mod:`idp_common.web.recent_auth`), and a token about the person that
   stands on no session and is older is refused (:mod:`idp_common.web.token_standing`);
2. every browser session of the person ends with the logout fan-out
   (:func:`~idp_common.usecases.session_end.end_sessions`: its refresh tokens revoked, its
   applications told), but the one ``keep`` names: a person removing a factor from the
   console keeps the session they did it from, every other session (an attacker's
   included) ends. Its access tokens then stand on a live session, but it has to sign in
   again before its next sensitive change, because its sign-in is older than the change;
3. once the transaction has committed, the ``users`` change stamp is bumped, so that every
   worker of every service forgets what it knew of the person and sees the change on the
   next request. A stamp that cannot be bumped is logged: the workers' copies expire
   within seconds anyway (``PERSON_SECONDS``), and the sessions are gone already.
"""

from __future__ import annotations

import logging
import uuid
from typing import Final

from redis.exceptions import RedisError
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session, SessionTransaction
from sqlalchemy.util import await_only

from idp_common.state.change_stamp import USERS, bump
from idp_common.state.sessions import SessionStore
from idp_common.storage.repos.users import mark_credentials_changed
from idp_common.usecases.session_end import Ended, end_sessions

__all__ = ["credentials_changed"]

log = logging.getLogger("idp.credentials")
#: ``Session.info`` key: the stores whose ``users`` stamp to bump once committed.
_PENDING: Final = "idp_common.usecases.credential_change.pending"


async def credentials_changed(
    db_session: AsyncSession,
    store: SessionStore,
    user_id: uuid.UUID,
    *,
    reason: str,
    nats_prefix: str,
    keep_sid: str | None = None,
) -> Ended:
    """See the module; ``reason`` is the logout reason of the sessions it ends, ``keep_sid``
    the session that stays (None: none). Answers what :func:`end_sessions` ended."""
    await mark_credentials_changed(db_session, user_id)
    # In sid order: two requests ending the same person's sessions never wait in a cycle.
    sessions = sorted(await store.list_sessions(str(user_id)), key=lambda r: r.sid)
    ending = [s for s in sessions if keep_sid is None or keep_sid not in s.all_sids]
    ended = await end_sessions(db_session, store, ending, reason=reason, nats_prefix=nats_prefix)
    _bump_after_commit(db_session, store)
    return ended


def _bump_after_commit(db_session: AsyncSession, store: SessionStore) -> None:
    sync = db_session.sync_session
    pending: list[SessionStore] | None = sync.info.get(_PENDING)
    if pending is None:
        pending = sync.info[_PENDING] = []
        event.listen(sync, "after_commit", _after_commit)
        event.listen(sync, "after_transaction_end", _after_transaction_end)
    pending.append(store)


def _after_commit(sync: Session) -> None:
    if sync.in_nested_transaction():  # a savepoint released: the real commit is later
        return
    pending: list[SessionStore] = sync.info.get(_PENDING) or []
    stores, pending[:] = list(pending), []
    for store in {id(s): s for s in stores}.values():
        try:
            # Runs inside the commit's greenlet (AsyncSession.commit), so it may await.
            await_only(bump(store.redis, store.prefix, USERS))
        except (RedisError, OSError) as exc:
            log.error("could not announce a change of credentials (%s)", type(exc).__name__)


def _after_transaction_end(sync: Session, transaction: SessionTransaction) -> None:
    """Rolled back or closed without a commit (a commit has emptied the list already)."""
    if transaction.parent is None:
        pending: list[SessionStore] = sync.info.get(_PENDING) or []
        pending.clear()
