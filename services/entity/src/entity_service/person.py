"""The person a self-service token speaks for (its ``sub``).

Every ``/entity/*`` route acts on the caller only. A machine client's token (``sub`` = its
``client_id``, not a person's id) and a token of a person who no longer exists get one
answer everywhere: 404 ``entity.not_a_person``, never anyone's data.
"""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import NotFound
from idp_common.storage.repos.users import UserAccount, get_user, lock_user


def not_a_person() -> NotFound:
    return NotFound("the token's subject is not a person", code="entity.not_a_person")


def person_key(subject: str) -> uuid.UUID:
    """The id a person's token carries, without reading the database."""
    try:
        return uuid.UUID(subject)
    except ValueError:
        raise not_a_person() from None


async def the_person(session: AsyncSession, subject: str, *, lock: bool = False) -> UserAccount:
    """The person as stored now; ``lock`` serialises writes to one person until the
    transaction ends."""
    key = person_key(subject)
    person = await (lock_user(session, key) if lock else get_user(session, key))
    if person is None:
        raise not_a_person()
    return person


async def person_id(session: AsyncSession, subject: str, *, lock: bool = False) -> uuid.UUID:
    """The person's id once their row is found (and locked, with ``lock``)."""
    return (await the_person(session, subject, lock=lock)).id
