"""Contract of :mod:`idp_common.storage.repos.credentials` against Postgres: one password
row per person whatever the concurrency, an authenticator confirmed once, a time step and
a recovery code accepted at most once."""

from __future__ import annotations

import asyncio
import hashlib
import uuid

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.repos import credentials as repo
from idp_common.storage.repos.users import lock_user
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import RACERS, Sessions, race

pytestmark = pytest.mark.integration
# The fixtures, by the names the tests ask for.
make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions
person = people_fixtures.person
SEALED = b"sealed secret"


def digests(count: int) -> list[bytes]:
    return [hashlib.sha256(f"code-{i}".encode()).digest() for i in range(count)]


async def confirmed(sessions: Sessions, person: uuid.UUID, codes: list[bytes]) -> None:
    async with sessions.begin() as session:
        assert await repo.start_totp_enrolment(session, person, SEALED)
        assert await repo.confirm_totp(session, person, 100, codes) is not None


async def confirmed_pending(sessions: Sessions, person: uuid.UUID) -> None:
    async with sessions.begin() as session:
        assert await repo.confirm_totp(session, person, 100, []) is not None


async def test_concurrent_password_changes_leave_one_row(
    sessions: Sessions, person: uuid.UUID
) -> None:
    hashes = [f"$argon2id$v=19$m=65536,t=3,p=4$salt${i}" for i in range(RACERS)]

    async def change(session: AsyncSession, index: int) -> None:
        await repo.set_password_hash(session, person, hashes[index])

    outcomes = await race(sessions, change)
    assert outcomes == [None] * RACERS
    async with sessions() as session:
        assert await repo.get_password_hash(session, person) in hashes
    async with sessions.begin() as session:
        await repo.set_password_hash(session, person, None)
    async with sessions() as session:
        assert await repo.get_password_hash(session, person) is None


async def test_a_rehash_replaces_only_the_hash_it_verified(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as session:
        await repo.set_password_hash(session, person, "$old")
    async with sessions.begin() as session:
        assert await repo.replace_password_hash(session, person, "$old", "$rehashed")
    async with sessions.begin() as session:  # changed meanwhile: the rehash writes nothing
        await repo.set_password_hash(session, person, "$changed")
        assert not await repo.replace_password_hash(session, person, "$rehashed", "$stale")
    async with sessions() as session:
        assert await repo.get_password_hash(session, person) == "$changed"


async def test_a_change_waits_for_a_reader_holding_the_share_lock(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as session:
        await repo.set_password_hash(session, person, "$before")
    async with sessions.begin() as reader:
        assert await repo.locked_password_hash(reader, person) == "$before"

        async def change() -> None:
            async with sessions.begin() as writer:
                await lock_user(writer, person)
                await repo.set_password_hash(writer, person, "$after")

        waiting = asyncio.create_task(change())
        await asyncio.sleep(0.3)
        assert not waiting.done(), "the change did not wait for the share lock"
    await asyncio.wait_for(waiting, 10)
    async with sessions() as session:
        assert await repo.locked_password_hash(session, person) == "$after"
        assert await repo.locked_password_hash(session, uuid.uuid4()) is None


async def test_a_reader_that_waited_for_a_change_sees_the_new_hash(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as session:
        await repo.set_password_hash(session, person, "$before")

    async def read() -> str | None:
        async with sessions.begin() as reader:
            return await repo.locked_password_hash(reader, person)

    async with sessions.begin() as writer:
        await lock_user(writer, person)
        await repo.set_password_hash(writer, person, "$after")
        waiting = asyncio.create_task(read())
        await asyncio.sleep(0.3)
        assert not waiting.done(), "the reader did not wait for the change"
    assert await asyncio.wait_for(waiting, 10) == "$after"


async def test_a_recovery_code_is_spent_once_under_concurrent_use(
    sessions: Sessions, person: uuid.UUID
) -> None:
    codes = digests(3)
    await confirmed(sessions, person, codes)

    async def spend(session: AsyncSession, _: int) -> bool:
        return await repo.spend_recovery_code(session, person, codes[0])

    assert (await race(sessions, spend)).count(True) == 1
    async with sessions.begin() as session:
        assert not await repo.spend_recovery_code(session, person, codes[0])
        assert not await repo.spend_recovery_code(session, person, b"unknown")
        assert await repo.recovery_codes_left(session, person) == 2


async def test_a_time_step_is_accepted_once_and_never_an_earlier_one(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as session:
        assert await repo.start_totp_enrolment(session, person, SEALED)
        assert not await repo.use_totp_step(session, person, 200)  # pending: refused
    await confirmed_pending(sessions, person)

    async def use(session: AsyncSession, _: int) -> bool:
        return await repo.use_totp_step(session, person, 200)

    assert (await race(sessions, use)).count(True) == 1
    async with sessions.begin() as session:
        assert not await repo.use_totp_step(session, person, 199)
        assert await repo.use_totp_step(session, person, 201)
        record = await repo.get_totp(session, person)
    assert record is not None and record.confirmed and record.last_used_step == 201


async def test_an_authenticator_is_confirmed_once_and_replaces_the_codes(
    sessions: Sessions, person: uuid.UUID
) -> None:
    await confirmed(sessions, person, digests(5))
    async with sessions.begin() as session:
        assert await repo.remove_totp(session, person)
        assert await repo.start_totp_enrolment(session, person, SEALED)

    async def confirm(session: AsyncSession, index: int) -> object:
        own = digests(2 * RACERS)[2 * index : 2 * index + 2]
        return await repo.confirm_totp(session, person, 100, own)

    outcomes = await race(sessions, confirm)
    assert sum(outcome is not None for outcome in outcomes) == 1
    async with sessions() as session:
        assert await repo.recovery_codes_left(session, person) == 2


async def test_enrolment_replaces_only_a_pending_secret(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as session:
        assert await repo.get_totp(session, person) is None
        assert await repo.start_totp_enrolment(session, person, b"first")
        assert await repo.start_totp_enrolment(session, person, b"second")
        pending = await repo.get_totp(session, person)
    assert pending is not None and pending.secret_encrypted == b"second"
    assert not pending.confirmed
    await confirmed_pending(sessions, person)
    async with sessions.begin() as session:
        assert not await repo.start_totp_enrolment(session, person, b"third")
        record = await repo.get_totp(session, person)
    assert record is not None and record.secret_encrypted == b"second"


async def test_removing_the_authenticator_removes_every_recovery_code(
    sessions: Sessions, person: uuid.UUID
) -> None:
    await confirmed(sessions, person, digests(4))
    async with sessions.begin() as session:
        assert await repo.remove_totp(session, person)
        assert not await repo.remove_totp(session, person)
        assert await repo.get_totp(session, person) is None
        assert await repo.recovery_codes_left(session, person) == 0
