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
  accepts one in place of a code, once (``authui_service.totp.recovery_code_digest``
  computes the same digest).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from datetime import datetime
from typing import Final

import msgspec
import pyotp
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.db.models import TotpCredential, TotpRecoveryCode

STEP_SECONDS: Final = 30
DIGITS: Final = 6
DRIFT_STEPS: Final = 1
SECRET_BYTES: Final = 20
RECOVERY_CODE_COUNT: Final = 10
_RECOVERY_ALPHABET: Final = "abcdefghijklmnopqrstuvwxyz234567"
_RECOVERY_HALF: Final = 5


class TotpState(msgspec.Struct, frozen=True, kw_only=True):
    secret_encrypted: bytes
    confirmed_at: datetime | None
    recovery_codes_left: int


# --- pure ------------------------------------------------------------------------------------
def new_secret() -> str:
    return pyotp.random_base32(length=SECRET_BYTES * 8 // 5)


def provisioning_uri(secret: str, *, account: str, issuer: str) -> str:
    """The ``otpauth://totp/...`` URI authenticator apps read (Key Uri Format)."""
    return pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS).provisioning_uri(
        name=account, issuer_name=issuer
    )


def matching_step(secret: str, code: str, *, now: float) -> int | None:
    """The time step within ±1 of ``now`` that ``code`` is the code of; None otherwise."""
    code = code.replace(" ", "")
    if len(code) != DIGITS or not code.isascii() or not code.isdigit():
        return None
    generator = pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS)
    current = int(now // STEP_SECONDS)
    found = None
    for step in range(current - DRIFT_STEPS, current + DRIFT_STEPS + 1):
        if hmac.compare_digest(str(generator.generate_otp(step)), code) and found is None:
            found = step
    return found


def new_recovery_codes(count: int = RECOVERY_CODE_COUNT) -> list[str]:
    codes = set[str]()
    while len(codes) < count:
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(2 * _RECOVERY_HALF))
        codes.add(f"{raw[:_RECOVERY_HALF]}-{raw[_RECOVERY_HALF:]}")
    return sorted(codes)


def recovery_code_digest(code: str) -> bytes:
    normalised = "".join(code.split()).replace("-", "").lower()
    return hashlib.sha256(normalised.encode()).digest()


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
    session.add_all(
        TotpRecoveryCode(user_id=user_id, code_digest=recovery_code_digest(code))
        for code in recovery_codes
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
