"""Rules the database enforces on profile values: uniqueness per field, also under racing
writers, and the field's unique flag."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from idp_common.storage.db.models import (
    ProfileField,
    ProfileValue,
)
from libs.common.tests.integration.schema_constraints.support import (
    FOREIGN_KEY_VIOLATION,
    UNIQUE_VIOLATION,
    _field,
    _users,
    add,
    values,
    violation,
    wait_until_blocked_on_a_lock,
)

pytestmark = pytest.mark.integration


async def test_equal_values_of_a_unique_field_are_refused(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    alice, bob = await _users(sessions, 2)
    field = await _field(sessions, unique=True)
    await add(sessions, ProfileValue(field_id=field, user_id=alice, value="E-1", is_unique=True))

    with pytest.raises(IntegrityError) as error:
        await add(sessions, ProfileValue(field_id=field, user_id=bob, value="E-1", is_unique=True))

    assert violation(error.value) == (UNIQUE_VIOLATION, "uq_profile_values_field_id_value")
    assert await values(sessions, field) == ["E-1"]


async def test_equal_values_of_a_non_unique_field_are_accepted(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    alice, bob = await _users(sessions, 2)
    field = await _field(sessions, unique=False)

    await add(
        sessions,
        ProfileValue(field_id=field, user_id=alice, value="Sales", is_unique=False),
        ProfileValue(field_id=field, user_id=bob, value="Sales", is_unique=False),
    )

    assert await values(sessions, field) == ["Sales", "Sales"]


async def test_uniqueness_is_per_field(sessions: async_sessionmaker[AsyncSession]) -> None:
    alice, bob = await _users(sessions, 2)
    first, second = await _field(sessions, unique=True), await _field(sessions, unique=True)

    await add(
        sessions,
        ProfileValue(field_id=first, user_id=alice, value="X", is_unique=True),
        ProfileValue(field_id=second, user_id=bob, value="X", is_unique=True),
    )


async def test_concurrent_writers_of_one_value_exactly_one_commits(
    migrated_engine: AsyncEngine, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """The second writer waits on the first's uncommitted index entry, then fails."""
    alice, bob = await _users(sessions, 2)
    field = await _field(sessions, unique=True)

    async with sessions() as first, sessions() as second:
        first.add(ProfileValue(field_id=field, user_id=alice, value="E-7", is_unique=True))
        await first.flush()  # inserted, not committed
        second.add(ProfileValue(field_id=field, user_id=bob, value="E-7", is_unique=True))
        blocked = asyncio.create_task(second.commit())
        try:
            await wait_until_blocked_on_a_lock(migrated_engine)
            assert not blocked.done()
            await first.commit()
        except BaseException:
            await first.rollback()  # releases the second writer
            raise
        finally:
            await asyncio.wait([blocked])
        with pytest.raises(IntegrityError) as error:
            blocked.result()

    assert violation(error.value) == (UNIQUE_VIOLATION, "uq_profile_values_field_id_value")
    assert await values(sessions, field) == ["E-7"]


async def test_many_racing_writers_of_one_value_exactly_one_commits(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    users = await _users(sessions, 5)
    field = await _field(sessions, unique=True)
    start = asyncio.Event()

    async def write(user_id: uuid.UUID) -> None:
        async with sessions() as session:
            await session.execute(select(1))  # open the connection before the start signal
            await start.wait()
            session.add(ProfileValue(field_id=field, user_id=user_id, value="same", is_unique=True))
            await session.commit()

    tasks = [asyncio.create_task(write(user_id)) for user_id in users]
    await asyncio.sleep(0.1)
    start.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)

    assert sum(result is None for result in results) == 1
    assert all(isinstance(r, IntegrityError) for r in results if r is not None)
    assert await values(sessions, field) == ["same"]


@pytest.mark.parametrize("field_unique", [True, False])
async def test_is_unique_must_copy_the_field_flag(
    sessions: async_sessionmaker[AsyncSession], field_unique: bool
) -> None:
    (alice,) = await _users(sessions, 1)
    field = await _field(sessions, unique=field_unique)

    with pytest.raises(IntegrityError) as error:
        await add(
            sessions,
            ProfileValue(field_id=field, user_id=alice, value="v", is_unique=not field_unique),
        )

    assert violation(error.value) == (
        FOREIGN_KEY_VIOLATION,
        "fk_profile_values_field_id_is_unique_profile_fields",
    )


async def test_unique_flag_of_a_field_with_values_cannot_change(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    (alice,) = await _users(sessions, 1)
    field = await _field(sessions, unique=False)
    await add(sessions, ProfileValue(field_id=field, user_id=alice, value="v", is_unique=False))

    with pytest.raises(IntegrityError) as error:
        async with sessions.begin() as session:
            await session.execute(
                update(ProfileField).where(ProfileField.id == field).values(is_unique=True)
            )

    assert violation(error.value) == (
        FOREIGN_KEY_VIOLATION,
        "fk_profile_values_field_id_is_unique_profile_fields",
    )
