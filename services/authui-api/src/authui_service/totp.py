"""Spending a one-time recovery code at sign-in. The code rules themselves (TOTP steps,
recovery-code digests) are pure and shared with the self-service API:
:mod:`idp_common.protocol.rfc6238_totp`.
"""

from __future__ import annotations

import uuid

from sqlalchemy import func, update
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.models import TotpRecoveryCode


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
