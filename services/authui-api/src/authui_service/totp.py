"""TOTP codes (RFC 6238): 30-second steps, 6 digits, SHA-1, the step before and after
accepted for clock drift (RFC 6238 §5.2), and a step never accepted twice (§5.2: "the
verifier MUST NOT accept the second attempt of the OTP after the successful validation").

Pure: the caller passes ``now`` and the last accepted step, and stores the step this
returns (``totp_credentials.last_used_step``) atomically before trusting it.

A one-time recovery code (made at enrolment by the self-service API,
``entity_service.store.totp``: 10 base32 characters, shown as ``xxxxx-xxxxx``) stands in
for a code once: :func:`recovery_code_digest` is the stored digest of what was typed and
:func:`spend_recovery_code` spends it (the one function here that touches storage).
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from typing import Final

import pyotp
from sqlalchemy import func, update
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.db.models import TotpRecoveryCode

STEP_SECONDS: Final = 30
DIGITS: Final = 6
DRIFT_STEPS: Final = 1
RECOVERY_CODE_LENGTH: Final = 10
_RECOVERY_ALPHABET: Final = frozenset("abcdefghijklmnopqrstuvwxyz234567")


def time_step(now: float) -> int:
    return int(now // STEP_SECONDS)


def match_totp_step(
    secret_b32: str, code: str, *, now: float, last_used_step: int | None
) -> int | None:
    """The step ``code`` belongs to, within ±1 step of ``now`` and after
    ``last_used_step``; None when it matches none. ValueError when the secret is not
    base32 of at least 112 bits (a stored value this provider did not make)."""
    code = code.replace(" ", "")
    if len(code) != DIGITS or not code.isascii() or not code.isdigit():
        return None
    generator = pyotp.TOTP(secret_b32, digits=DIGITS, interval=STEP_SECONDS)
    current = time_step(now)
    found: int | None = None
    for step in range(current - DRIFT_STEPS, current + DRIFT_STEPS + 1):
        matches = hmac.compare_digest(str(generator.generate_otp(step)), code)
        unused = last_used_step is None or step > last_used_step
        if matches and unused and found is None:
            found = step
    return found


def recovery_code_digest(code: str) -> bytes | None:
    """SHA-256 of ``code`` as recovery codes are stored (lower case, without spaces and
    hyphens); None when ``code`` cannot be a recovery code (a six-digit code, for one)."""
    normalised = "".join(code.split()).replace("-", "").lower()
    if len(normalised) != RECOVERY_CODE_LENGTH or not set(normalised) <= _RECOVERY_ALPHABET:
        return None
    return hashlib.sha256(normalised.encode()).digest()


async def spend_recovery_code(session: AsyncSession, user_id: uuid.UUID, digest: bytes) -> bool:
    """Mark the person's unused code with ``digest`` used; False when there is none.
    Atomic (``UPDATE … WHERE used_at IS NULL``): of two concurrent uses, one wins."""
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
