"""Repository functions of the sign-in API that ``idp_common.storage.repos`` does not have yet:
TOTP credential reads and step bookkeeping, password-reset tokens, setting a password.

Plain async functions taking an ``AsyncSession`` first (STYLE.md §4); the caller owns the
transaction. Candidates to move to ``idp_common.storage.repos`` when a second service needs them
(self-service will: password change, TOTP enrolment).
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime, timedelta

import msgspec
from sqlalchemy import func, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.oidc_core_claims import digest
from idp_common.storage.db.models import PasswordCredential, PasswordResetToken, TotpCredential

RESET_TOKEN_SECONDS = 30 * 60


class TotpRecord(msgspec.Struct, frozen=True, kw_only=True):
    secret_encrypted: bytes
    confirmed: bool
    last_used_step: int | None


async def get_totp(session: AsyncSession, user_id: uuid.UUID) -> TotpRecord | None:
    """The person's authenticator, or None when they have none."""
    row = await session.get(TotpCredential, user_id)
    if row is None:
        return None
    return TotpRecord(
        secret_encrypted=bytes(row.secret_encrypted),
        confirmed=row.confirmed_at is not None,
        last_used_step=row.last_used_step,
    )


async def use_totp_step(session: AsyncSession, user_id: uuid.UUID, step: int) -> bool:
    """Record ``step`` as used; False when it (or a later one) was used already.

    Atomic (``UPDATE … WHERE last_used_step IS NULL OR last_used_step < step``): of two
    concurrent submissions of one code, one wins.
    """
    result = await session.execute(
        update(TotpCredential)
        .where(
            TotpCredential.user_id == user_id,
            TotpCredential.confirmed_at.is_not(None),
            or_(TotpCredential.last_used_step.is_(None), TotpCredential.last_used_step < step),
        )
        .values(last_used_step=step)
        .returning(TotpCredential.user_id)
    )
    return result.first() is not None


async def create_reset_token(session: AsyncSession, user_id: uuid.UUID, *, now: datetime) -> str:
    """A new single-use reset token (30 min); only its SHA-256 digest is stored."""
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
    """The person a live (unused, unexpired) token belongs to; None otherwise. Reads only."""
    return await session.scalar(
        select(PasswordResetToken.user_id).where(
            PasswordResetToken.token_digest == digest(token),
            PasswordResetToken.used_at.is_(None),
            PasswordResetToken.expires_at > now,
        )
    )


async def consume_reset_token(
    session: AsyncSession, token: str, *, now: datetime
) -> uuid.UUID | None:
    """Spend a live token (``UPDATE … WHERE used_at IS NULL … RETURNING``): exactly one of
    two concurrent confirmations gets the person; None when unknown, used or expired."""
    return await session.scalar(
        update(PasswordResetToken)
        .where(
            PasswordResetToken.token_digest == digest(token),
            PasswordResetToken.used_at.is_(None),
            PasswordResetToken.expires_at > now,
        )
        .values(used_at=now)
        .returning(PasswordResetToken.user_id)
    )


async def spend_reset_tokens_of(session: AsyncSession, user_id: uuid.UUID, *, now: datetime) -> int:
    """Spend every other live reset token of the person (older mails stop working)."""
    result = await session.execute(
        update(PasswordResetToken)
        .where(PasswordResetToken.user_id == user_id, PasswordResetToken.used_at.is_(None))
        .values(used_at=now)
    )
    return int(getattr(result, "rowcount", 0) or 0)


async def set_password_hash(session: AsyncSession, user_id: uuid.UUID, hash: str) -> None:
    """Store the person's password hash, creating the credential when absent."""
    await session.execute(
        insert(PasswordCredential)
        .values(user_id=user_id, hash=hash)
        .on_conflict_do_update(
            index_elements=[PasswordCredential.user_id],
            set_={"hash": hash, "updated_at": func.now()},
        )
    )
