"""The caller's authenticator (TOTP, RFC 6238) and one-time recovery codes (spec part 4
``/entity/totp*``).

Contract:
- the secret is 160 random bits in base32 (RFC 4226 §4 recommends 160), sealed with
  :mod:`idp_common.crypto.secretbox` under ``totp_context(user_id)`` in
  ``totp_credentials`` with ``confirmed_at`` NULL until a first code proves the
  authenticator holds it. Codes: 6 digits, 30 s, SHA-1, the step before and after
  accepted, as the sign-in API checks them (``authui_service.totp``); the step that
  confirmed is stored as ``last_used_step``, so that code cannot sign in afterwards;
- :func:`start_enrolment` replaces a pending (unconfirmed) secret and refuses, atomically,
  when a confirmed one exists; :func:`confirm` succeeds once (``UPDATE … WHERE
  confirmed_at IS NULL``), so two concurrent confirmations cannot both hand out codes;
- recovery codes: :data:`RECOVERY_CODE_COUNT` codes of 10 base32 characters (50 bits)
  written ``xxxxx-xxxxx``; stored as the SHA-256 of the lower-case characters without
  separators, never themselves; confirming replaces any earlier ones. The sign-in API
  accepts one in place of a code, once (``idp_common.protocol.rfc6238_totp``
  holds the code rules both use).
"""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.rfc6238_totp import recovery_code_digest
from idp_common.storage.db.models import TotpCredential, TotpRecoveryCode


class TotpState(msgspec.Struct, frozen=True, kw_only=True):
    secret_encrypted: bytes
    confirmed_at: datetime | None
    recovery_codes_left: int


# --- storage -----------------------------------------------------------------------------------
async def get_state(session: AsyncSession, user_id: uuid.UUID) -> TotpState | None:
    row = await session.get(TotpCredential, user_id, populate_existing=True)
    if row is None:
        return None
    left = await session.scalar(
        select(func.count())
        .select_from(TotpRecoveryCode)
        .where(TotpRecoveryCode.user_id == user_id, TotpRecoveryCode.used_at.is_(None))
    )
    return TotpState(
        secret_encrypted=bytes(row.secret_encrypted),
        confirmed_at=row.confirmed_at,
        recovery_codes_left=int(left or 0),
    )


async def start_enrolment(session: AsyncSession, user_id: uuid.UUID, sealed: bytes) -> bool:
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


async def confirm(
    session: AsyncSession, user_id: uuid.UUID, step: int, recovery_codes: list[str]
) -> datetime | None:
    """Mark the pending authenticator confirmed at ``step`` and store the digests of
    ``recovery_codes`` in place of any earlier ones; None when nothing was pending."""
    confirmed_at: datetime | None = await session.scalar(
        update(TotpCredential)
        .where(TotpCredential.user_id == user_id, TotpCredential.confirmed_at.is_(None))
        .values(confirmed_at=func.now(), last_used_step=step)
        .returning(TotpCredential.confirmed_at)
    )
    if confirmed_at is None:
        return None
    await session.execute(delete(TotpRecoveryCode).where(TotpRecoveryCode.user_id == user_id))
    digests = [recovery_code_digest(code) for code in recovery_codes]
    if any(d is None for d in digests):
        raise ValueError("not recovery codes this provider made")
    session.add_all(
        TotpRecoveryCode(user_id=user_id, code_digest=d) for d in digests if d is not None
    )
    await session.flush()
    return confirmed_at


async def remove(session: AsyncSession, user_id: uuid.UUID) -> bool:
    """Remove the authenticator (pending or confirmed) and every recovery code; True when
    there was one."""
    removed = await session.scalar(
        delete(TotpCredential)
        .where(TotpCredential.user_id == user_id)
        .returning(TotpCredential.user_id)
    )
    await session.execute(delete(TotpRecoveryCode).where(TotpRecoveryCode.user_id == user_id))
    return removed is not None
