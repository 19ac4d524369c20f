"""The caller's passkeys (docs/passkeys.md): the name rule, and storing a new
one under the per-person limit with its credential id unique across everyone.

The person's row is locked by the caller (:func:`entity_service.person.person_id` with
``lock``), so two registrations of one person cannot both pass the limit. A credential id
someone already registered is one 409 whoever holds it: the answer never says whose.
"""

from __future__ import annotations

import unicodedata
import uuid
from typing import Final

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.protocol.w3c_webauthn import RegisteredCredential
from idp_common.storage.repos import passkeys as repo
from idp_common.storage.repos.passkeys import MAX_PASSKEYS_PER_PERSON, PasskeyRecord

MAX_NAME_LENGTH: Final = 64
DEFAULT_NAME: Final = "Passkey"
#: Control characters, lone surrogates (PostgreSQL text refuses them) and the line and
#: paragraph separators: a name is one line of text.
_REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cs", "Zl", "Zp"})


def passkey_name(raw: str) -> str:
    """``raw`` without surrounding spaces: 1 to 64 characters, one line (else 422 naming
    ``name``)."""
    name = raw.strip()
    problem = None
    if not name:
        problem = "must not be empty"
    elif len(name) > MAX_NAME_LENGTH:
        problem = f"must be at most {MAX_NAME_LENGTH} characters"
    elif any(unicodedata.category(c) in _REFUSED_CATEGORIES for c in name):
        problem = "must not contain control characters"
    if problem is not None:
        raise InvalidArgument(
            f"name {problem}", code="passkey.bad_name", errors=[FieldError("name", problem)]
        )
    return name


def passkey_not_found() -> NotFound:
    """Unknown and someone else's alike."""
    return NotFound("you have no passkey with this id", code="passkey.not_found")


def passkey_key(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise passkey_not_found() from None


async def add_own_passkey(
    session: AsyncSession, person: uuid.UUID, registered: RegisteredCredential, name: str
) -> PasskeyRecord:
    """Store the verified credential as the person's (their row locked by the caller)."""
    if await repo.count_passkeys(session, person) >= MAX_PASSKEYS_PER_PERSON:
        raise Conflict(
            f"you already have {MAX_PASSKEYS_PER_PERSON} passkeys; remove one first",
            code="passkey.too_many",
        )
    try:
        return await repo.add_passkey(session, person, registered, name)
    except IntegrityError:
        raise Conflict(
            "this passkey is already registered",
            code="passkey.already_registered",
            errors=[FieldError("credential", "is already registered")],
        ) from None
