"""The photo column of the caller (``users.picture``: an object name, not a URL).

Both functions run in the caller's transaction. :func:`lock_picture` locks the person's
row (``SELECT ... FOR UPDATE``) so that two uploads by one person run one after the
other and each deletes the object the other replaced; a subject that is not a person (a
machine client, or a person deleted since the token was issued) is ``NotFound``
(``entity.not_a_person``, as the other self-service routes answer).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from entity_service.person import not_a_person, person_key
from idp_common.storage.db.models import User


@dataclass(frozen=True)
class Person:
    """The locked person: their id and current photo object name."""

    id: uuid.UUID
    picture: str | None


async def lock_picture(session: AsyncSession, subject: str) -> Person:
    key = person_key(subject)
    row = (
        await session.execute(select(User.id, User.picture).where(User.id == key).with_for_update())
    ).one_or_none()
    if row is None:
        raise not_a_person()
    return Person(row.id, row.picture)


async def set_picture(session: AsyncSession, person_id: uuid.UUID, name: str | None) -> None:
    """Store ``name`` (None: no photo); ``updated_at`` moves, as the claim of that name says."""
    await session.execute(
        update(User).where(User.id == person_id).values(picture=name, updated_at=func.now())
    )


async def current_picture(session: AsyncSession, person_id: uuid.UUID) -> str | None:
    """The person's current photo object name (None: no photo, or no such person)."""
    picture: str | None = await session.scalar(select(User.picture).where(User.id == person_id))
    return picture
