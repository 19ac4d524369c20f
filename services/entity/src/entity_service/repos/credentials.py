"""The caller's password and email address (contract §4 ``/entity/credentials/*``; docs/design.md
"Wire contracts", self-service bodies).

Contract:
- :func:`verify_current_password` proves the caller knows their password before either
  change: a wrong one (or none stored: the administrator removed it) is a 422 naming
  ``currentPassword``. Attempts count per person in the shared rate limiter
  (:data:`CHECKS_PER_WINDOW` per :data:`CHECK_WINDOW_SECONDS`, 429 past it; a success
  clears the count), so a stolen fresh token cannot guess the password at full speed;
- :func:`change_email` writes in the caller's transaction (the caller holds the person's
  row lock); an email address another person has, compared case-insensitively, is a 409
  naming ``email``, also when a concurrent writer wins the unique index. The password
  itself is set by :mod:`idp_common.usecases.password_change`;
- the email syntax is the profile fields' ``email`` rule
  (:mod:`idp_common.profile_fields.values`), the one rule in ``idp_common``, and printable
  characters only (a NUL would not even reach Postgres).
"""

from __future__ import annotations

import uuid
from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.crypto.passwords import verify_password_async
from idp_common.errors import Conflict, FieldError, InvalidArgument, RateLimited
from idp_common.protocol.email_address import email_problem
from idp_common.state.ratelimit import RateLimiter
from idp_common.storage.repos.credentials import get_password_hash
from idp_common.storage.repos.users import IdentifierTaken, UserRecord, update_user

CURRENT_PASSWORD_FIELD: Final = "currentPassword"  # noqa: S105 (a field name)
NEW_PASSWORD_FIELD: Final = "newPassword"  # noqa: S105 (a field name)
CHECK_BUCKET: Final = "credential_check"
CHECKS_PER_WINDOW: Final = 5
CHECK_WINDOW_SECONDS: Final = 15 * 60


def check_email(address: str) -> None:
    problem = email_problem(address)
    if problem:
        raise InvalidArgument(f"email {problem}", errors=[FieldError("email", problem)])


def _wrong_password() -> InvalidArgument:
    message = "is not your current password"
    return InvalidArgument(
        f"{CURRENT_PASSWORD_FIELD} {message}",
        code="entity.wrong_password",
        errors=[FieldError(CURRENT_PASSWORD_FIELD, message)],
    )


def _email_taken() -> Conflict:
    message = "another person already uses this address"
    return Conflict(
        f"email: {message}", code="entity.email_taken", errors=[FieldError("email", message)]
    )


async def verify_current_password(
    limiter: RateLimiter, user_id: uuid.UUID, stored: str | None, password: str
) -> None:
    """Check ``password`` against the ``stored`` hash (see the module text for the
    refusals). No database connection is held while argon2 runs."""
    attempt = await limiter.hit(
        CHECK_BUCKET, str(user_id), limit=CHECKS_PER_WINDOW, window_seconds=CHECK_WINDOW_SECONDS
    )
    if not attempt.allowed:
        raise RateLimited(
            "too many wrong passwords; wait and try again",
            retry_after=attempt.retry_after,
            code="entity.password_checks_exhausted",
        )
    if stored is None or not await verify_password_async(stored, password):
        raise _wrong_password()
    await limiter.reset(CHECK_BUCKET, str(user_id))


async def password_unchanged(session: AsyncSession, user_id: uuid.UUID, verified: str) -> None:
    """409 when the password changed since it was verified (a concurrent change won)."""
    if await get_password_hash(session, user_id) != verified:
        raise Conflict(
            "the password changed meanwhile; try again", code="entity.password_changed_meanwhile"
        )


async def change_email(session: AsyncSession, person: UserRecord, email: str) -> bool:
    """Set the person's address; True when it is another mailbox than before (not only a
    change of letter case), which leaves it unverified."""
    try:
        await update_user(session, person.id, {"email": email})
    except IdentifierTaken as taken:
        raise _email_taken() from taken
    return email.lower() != person.email.lower()
