"""A person's secrets, the one owner of ``password_credentials``, ``totp_credentials`` and
``totp_recovery_codes`` (docs/design.md "Sign-in"). Only hashes, sealed secrets and digests are
stored; never a password, a TOTP secret in clear or a recovery code.

Contract (every function runs in the caller's transaction, which commits):
- a person has at most one password credential: :func:`set_password_hash` is one
  ``INSERT … ON CONFLICT DO UPDATE`` (or one ``DELETE`` for None), so concurrent changes
  leave exactly one row, holding the hash of whichever committed last;
- :func:`start_totp_enrolment` is one upsert that replaces only a pending (unconfirmed)
  secret: with a confirmed authenticator it writes nothing and answers False;
- :func:`confirm_totp` succeeds once (``UPDATE … WHERE confirmed_at IS NULL``): of
  concurrent confirmations one gets the timestamp, the others None; it replaces every
  earlier recovery code with the new ones;
- :func:`use_totp_step` accepts a time step at most once and never an earlier one
  (``UPDATE … WHERE last_used_step < step``): of two concurrent uses of one code, one wins;
- :func:`spend_recovery_code` spends a code at most once (``UPDATE … WHERE used_at IS
  NULL RETURNING``), however many requests present it at the same time;
- :func:`remove_totp` deletes the authenticator and every recovery code;
- :func:`locked_password_hash` reads the hash with the person's row share-locked: a
  password change (which locks the row for update first) either waits for the reader's
  transaction or is waited for, never interleaves (sign-in against a change);
- :func:`replace_password_hash` replaces one known hash only (a rehash at sign-in never
  overwrites a password changed in the meantime).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import msgspec
from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.models import (
    PasswordCredential,
    TotpCredential,
    TotpRecoveryCode,
    User,
)


class TotpRecord(msgspec.Struct, frozen=True, kw_only=True):
    """The person's authenticator: its sealed secret, when a first code confirmed it
    (None while pending) and the last time step accepted."""

    secret_encrypted: bytes
    confirmed_at: datetime | None
    last_used_step: int | None

    @property
    def confirmed(self) -> bool:
        return self.confirmed_at is not None


# --- password ----------------------------------------------------------------------------------


async def get_password_hash(session: AsyncSession, user_id: uuid.UUID) -> str | None:
    """The person's argon2id PHC string; None when they have no password."""
    return await session.scalar(
        select(PasswordCredential.hash).where(PasswordCredential.user_id == user_id)
    )


async def set_password_hash(session: AsyncSession, user_id: uuid.UUID, hash: str | None) -> None:
    """Store the person's argon2id PHC string (creating the credential when absent), or
    remove their password with None."""
    if hash is None:
        await session.execute(
            delete(PasswordCredential).where(PasswordCredential.user_id == user_id)
        )
        return
    await session.execute(
        insert(PasswordCredential)
        .values(user_id=user_id, hash=hash)
        .on_conflict_do_update(
            index_elements=[PasswordCredential.user_id],
            set_={"hash": hash, "updated_at": func.now()},
        )
    )


async def locked_password_hash(session: AsyncSession, user_id: uuid.UUID) -> str | None:
    """The person's hash (None: no password, or no such person), their row share-locked
    until the caller's transaction ends."""
    # Two statements: a locking read that waited for a change returns the rows of its own
    # snapshot for what it did not lock (READ COMMITTED), so the old hash; the next
    # statement's snapshot sees the change.
    await session.execute(select(User.id).where(User.id == user_id).with_for_update(read=True))
    return await get_password_hash(session, user_id)


async def replace_password_hash(
    session: AsyncSession, user_id: uuid.UUID, old: str, new: str
) -> bool:
    """Store ``new`` only while the stored hash is still ``old``; whether it did."""
    result = await session.execute(
        update(PasswordCredential)
        .where(PasswordCredential.user_id == user_id, PasswordCredential.hash == old)
        .values(hash=new, updated_at=func.now())
        .returning(PasswordCredential.user_id)
    )
    return result.first() is not None


# --- authenticator -----------------------------------------------------------------------------


async def get_totp(session: AsyncSession, user_id: uuid.UUID) -> TotpRecord | None:
    """The person's authenticator as stored now; None when they have none."""
    row = (
        await session.execute(
            select(
                TotpCredential.secret_encrypted,
                TotpCredential.confirmed_at,
                TotpCredential.last_used_step,
            ).where(TotpCredential.user_id == user_id)
        )
    ).one_or_none()
    if row is None:
        return None
    return TotpRecord(
        secret_encrypted=bytes(row.secret_encrypted),
        confirmed_at=row.confirmed_at,
        last_used_step=row.last_used_step,
    )


async def start_totp_enrolment(session: AsyncSession, user_id: uuid.UUID, sealed: bytes) -> bool:
    """Store ``sealed`` as the pending secret; False (nothing written) when the person
    already has a confirmed authenticator."""
    stored = await session.scalar(
        insert(TotpCredential)
        .values(user_id=user_id, secret_encrypted=sealed, confirmed_at=None)
        .on_conflict_do_update(
            index_elements=[TotpCredential.user_id],
            set_={"secret_encrypted": sealed, "last_used_step": None, "created_at": func.now()},
            where=TotpCredential.confirmed_at.is_(None),
        )
        .returning(TotpCredential.user_id)
    )
    return stored is not None


async def confirm_totp(
    session: AsyncSession, user_id: uuid.UUID, step: int, recovery_digests: Sequence[bytes]
) -> datetime | None:
    """Mark the pending authenticator confirmed at ``step`` and store ``recovery_digests``
    in place of any earlier codes; None (nothing written) when nothing was pending."""
    confirmed_at: datetime | None = await session.scalar(
        update(TotpCredential)
        .where(TotpCredential.user_id == user_id, TotpCredential.confirmed_at.is_(None))
        .values(confirmed_at=func.now(), last_used_step=step)
        .returning(TotpCredential.confirmed_at)
    )
    if confirmed_at is None:
        return None
    await session.execute(delete(TotpRecoveryCode).where(TotpRecoveryCode.user_id == user_id))
    session.add_all(TotpRecoveryCode(user_id=user_id, code_digest=d) for d in recovery_digests)
    await session.flush()
    return confirmed_at


async def use_totp_step(session: AsyncSession, user_id: uuid.UUID, step: int) -> bool:
    """Record ``step`` as used by the confirmed authenticator; False when it (or a later
    one) was used already, or there is no confirmed authenticator."""
    used = await session.scalar(
        update(TotpCredential)
        .where(
            TotpCredential.user_id == user_id,
            TotpCredential.confirmed_at.is_not(None),
            or_(TotpCredential.last_used_step.is_(None), TotpCredential.last_used_step < step),
        )
        .values(last_used_step=step)
        .returning(TotpCredential.user_id)
    )
    return used is not None


async def remove_totp(session: AsyncSession, user_id: uuid.UUID) -> bool:
    """Remove the authenticator (pending or confirmed) and every recovery code; True when
    there was one."""
    removed = await session.scalar(
        delete(TotpCredential)
        .where(TotpCredential.user_id == user_id)
        .returning(TotpCredential.user_id)
    )
    await session.execute(delete(TotpRecoveryCode).where(TotpRecoveryCode.user_id == user_id))
    return removed is not None


# --- recovery codes ----------------------------------------------------------------------------


async def recovery_codes_left(session: AsyncSession, user_id: uuid.UUID) -> int:
    left = await session.scalar(
        select(func.count())
        .select_from(TotpRecoveryCode)
        .where(TotpRecoveryCode.user_id == user_id, TotpRecoveryCode.used_at.is_(None))
    )
    return int(left or 0)


async def spend_recovery_code(session: AsyncSession, user_id: uuid.UUID, digest: bytes) -> bool:
    """Mark the person's unused code with ``digest`` used; False when there is none."""
    spent = await session.scalar(
        update(TotpRecoveryCode)
        .where(
            TotpRecoveryCode.user_id == user_id,
            TotpRecoveryCode.code_digest == digest,
            TotpRecoveryCode.used_at.is_(None),
        )
        .values(used_at=func.now())
        .returning(TotpRecoveryCode.id)
    )
    return spent is not None
