"""Setting a person's password, the one sequence every route that does it follows: an
administrator's reset (``POST /admin/users/{id}/reset-password``), the emailed reset link
(``POST /api/v1/auth/password-reset/confirm``) and the person's own change
(``POST /entity/credentials/password``).

1. :func:`hash_new_password`, before any transaction: the password policy (422 naming
   ``field``) and argon2id off the event loop, so no database connection waits on it;
2. :func:`set_password`, inside the caller's transaction, after the caller's own checks
   (authority, spent reset token): lock the person's row (a sign-in finishing at the same
   moment holds it shared: its session is ended here, or it sees the new hash and is
   refused), store the hash (or remove the password), mark the person's credentials
   changed and end every browser session of theirs with the logout fan-out
   (:mod:`idp_common.usecases.credential_change`: their access tokens stop at once), revoke
   every refresh token of theirs, and add the audit row. All of it commits or rolls back
   together.

Audit vocabulary (the action stays the route's own: ``user.reset_password``,
``password_reset.completed``, ``credentials.password``; ``target_type`` ``user`` and
``target`` the person's id): ``detail`` is ``{"passwordSet": bool, "sessionsEnded": n,
"refreshTokensRevoked": n}``, the last counting the session-bound and the other live
tokens together. Never a password or a hash.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.crypto.passwords import hash_password_async
from idp_common.protocol.password_policy import check_password
from idp_common.state.sessions import SessionStore
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.credentials import set_password_hash
from idp_common.storage.repos.users import lock_user
from idp_common.usecases.credential_change import credentials_changed
from idp_common.usecases.session_end import revoke_user_refresh_tokens

__all__ = ["PasswordSet", "hash_new_password", "set_password"]


class PasswordSet(msgspec.Struct, frozen=True, kw_only=True):
    sessions_ended: int
    refresh_tokens_revoked: int


async def hash_new_password(
    password: str, *, context: Iterable[str | None], field: str = "password"
) -> str:
    """The argon2id PHC string of ``password`` once the policy accepts it (``context``: the
    person's email and username, which the password may not resemble)."""
    check_password(password, context=context, field=field)
    return await hash_password_async(password)


async def set_password(
    session: AsyncSession,
    browser_sessions: SessionStore,
    user_id: uuid.UUID,
    password_hash: str | None,
    *,
    reason: str,
    nats_prefix: str,
    audit: AuditEntry,
) -> PasswordSet:
    """Store ``password_hash`` (None removes the password), end the person's sessions with
    ``reason`` as the logout reason, revoke their refresh tokens and write ``audit``
    completed with the target and the detail of the module text."""
    await lock_user(session, user_id)
    await set_password_hash(session, user_id, password_hash)
    ended, revoked = await credentials_changed(
        session, browser_sessions, user_id, reason=reason, nats_prefix=nats_prefix
    )
    revoked += await revoke_user_refresh_tokens(session, user_id)
    detail = {
        "passwordSet": password_hash is not None,
        "sessionsEnded": ended,
        "refreshTokensRevoked": revoked,
    }
    write_audit(
        session,
        msgspec.structs.replace(
            audit, target_type="user", target=str(user_id), detail={**audit.detail, **detail}
        ),
    )
    return PasswordSet(sessions_ended=ended, refresh_tokens_revoked=revoked)
