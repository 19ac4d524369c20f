"""Password-reset link tokens, the one owner of ``password_reset_tokens`` (docs/design.md §2
"Sign-in": a single-use link, 30 minutes, stored as a digest).

Contract (every function runs in the caller's transaction):
- only the SHA-256 digest of a token is stored; the token itself leaves only in the mail;
- a token is live while unused and unexpired; :func:`find_reset_token` only reads;
- a token is spent at most once: :func:`consume_reset_token` is one ``UPDATE … WHERE
  used_at IS NULL AND expires_at > now RETURNING``, so of any number of concurrent
  confirmations exactly one gets the person and the others None;
- :func:`spend_reset_tokens_of` spends every other live token of the person in one
  statement (older mails stop working once a password is set).
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from idp_common.protocol.oidc_core_claims import digest
from idp_common.storage.db.engine import Db
from idp_common.storage.db.expiry import EARLIEST, Swept, delete_expired_batch
from idp_common.storage.db.models import PasswordResetToken

RESET_TOKEN_SECONDS: Final = 30 * 60


def _live(token: str, now: datetime) -> tuple[ColumnElement[bool], ...]:
    return (
        PasswordResetToken.token_digest == digest(token),
        PasswordResetToken.used_at.is_(None),
        PasswordResetToken.expires_at > now,
    )


async def create_reset_token(session: AsyncSession, user_id: uuid.UUID, *, now: datetime) -> str:
    """A new single-use token for the person, live for :data:`RESET_TOKEN_SECONDS`."""
    token = secrets.token_urlsafe(32)
    session.add(
        PasswordResetToken(
            token_digest=digest(token),
            user_id=user_id,
            expires_at=now + timedelta(seconds=RESET_TOKEN_SECONDS),
        )
    )
    await session.flush()
    return token


async def find_reset_token(session: AsyncSession, token: str, *, now: datetime) -> uuid.UUID | None:
    """The person a live token belongs to; None otherwise."""
    return await session.scalar(select(PasswordResetToken.user_id).where(*_live(token, now)))


async def consume_reset_token(
    session: AsyncSession, token: str, *, now: datetime
) -> uuid.UUID | None:
    """Spend a live token: the person it belongs to, or None when unknown, used or expired."""
    return await session.scalar(
        update(PasswordResetToken)
        .where(*_live(token, now))
        .values(used_at=now)
        .returning(PasswordResetToken.user_id)
    )


async def spend_reset_tokens_of(session: AsyncSession, user_id: uuid.UUID, *, now: datetime) -> int:
    """Spend every live token of the person; how many there were."""
    result = await session.execute(
        update(PasswordResetToken)
        .where(PasswordResetToken.user_id == user_id, PasswordResetToken.used_at.is_(None))
        .values(used_at=now)
    )
    return int(getattr(result, "rowcount", 0) or 0)


async def delete_expired_reset_tokens(
    db: Db, cutoff: datetime, *, limit: int, after: datetime = EARLIEST
) -> Swept:
    """The cleanup job: one batch, at most ``limit`` tokens that expired before ``cutoff``
    (``storage.db.expiry``). The table has no ``expires_at`` index: it holds the links of the
    last half hour or so, and each batch sorts its expired rows (a small sort)."""
    return await delete_expired_batch(db, "password_reset_tokens", cutoff, limit=limit, after=after)
