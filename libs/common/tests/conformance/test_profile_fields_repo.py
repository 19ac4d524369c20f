"""Contract of :mod:`idp_common.storage.repos.profile_fields` against Postgres: ``key`` and
``claimName`` unique (checked first, and the constraint catching racing writers, both as
:class:`FieldTaken` naming the member), fields paged by display order then key, a new field
placed last, values upserted, a unique field's value held by one person only (of
:data:`RACERS` concurrent writers of one value exactly one wins), and a deleted field
taking its values."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from admin_service.repos import groups
from idp_common.storage.db.models import ProfileValue
from idp_common.storage.repos import profile_fields as repo
from idp_common.storage.repos.profile_fields import FieldRow, FieldTaken, ValueTaken
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import RACERS, Sessions, new_person, race
from libs.common.tests.conformance.shared_fixtures import count, until_waiting

pytestmark = pytest.mark.integration
make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions
person = people_fixtures.person


def definition(key: str, **more: Any) -> dict[str, Any]:
    return {"key": key, "label": key.title(), "data_type": "string", **more}


async def add_field(sessions: Sessions, key: str, **more: Any) -> FieldRow:
    async with sessions.begin() as session:
        return await repo.insert_field(session, definition(key, **more))


async def test_key_and_claim_name_are_checked_and_constrained(sessions: Sessions) -> None:
    badge = await add_field(sessions, "badge", claim_name="badge", claim_scope="profile")
    other = await add_field(sessions, "desk")
    async with sessions() as session:
        await repo.check_taken(session, key="badge", claim_name="badge", other_than=badge.id)
        for key, claim, member in (("badge", None, "key"), (None, "badge", "claimName")):
            with pytest.raises(FieldTaken) as taken:
                await repo.check_taken(session, key=key, claim_name=claim, other_than=other.id)
            assert taken.value.member == member
    for attempt, member in (
        (lambda s: repo.insert_field(s, definition("badge")), "key"),
        (
            lambda s: repo.insert_field(s, definition("b2", claim_name="badge", claim_scope="p")),
            "claimName",
        ),
        (
            lambda s: repo.update_field(s, other.id, {"claim_name": "badge", "claim_scope": "p"}),
            "claimName",
        ),
    ):
        async with sessions.begin() as session:
            with pytest.raises(FieldTaken) as taken:
                await attempt(session)
        assert taken.value.member == member
    async with sessions() as session:
        stored = await repo.get_field(session, other.id)
    assert stored == other


async def test_of_racing_creates_of_one_key_one_wins(sessions: Sessions) -> None:
    async def create(session: AsyncSession, index: int) -> FieldRow:
        return await repo.insert_field(session, definition("badge", label=f"Badge {index}"))

    outcomes = await race(sessions, create)
    assert sum(isinstance(o, FieldRow) for o in outcomes) == 1
    assert {getattr(o, "member", None) for o in outcomes if not isinstance(o, FieldRow)} == {"key"}
    async with sessions() as session:
        fields, _ = await repo.list_fields(session, limit=RACERS, cursor=None)
    assert [f.key for f in fields] == ["badge"]


async def test_of_racing_claims_of_one_name_one_wins(sessions: Sessions) -> None:
    keys = [(await add_field(sessions, f"f{i:02}")).id for i in range(RACERS)]

    async def claim(session: AsyncSession, index: int) -> FieldRow | None:
        changes = {"claim_name": "badge", "claim_scope": "profile"}
        return await repo.update_field(session, keys[index], changes)

    outcomes = await race(sessions, claim)
    assert sum(isinstance(o, FieldRow) for o in outcomes) == 1
    assert {getattr(o, "member", None) for o in outcomes if not isinstance(o, FieldRow)} == {
        "claimName"
    }


async def test_fields_page_by_display_order_then_key_and_new_ones_go_last(
    sessions: Sessions,
) -> None:
    for key, order in (("c", 2), ("b", 2), ("a", 5), ("z", 1)):
        await add_field(sessions, key, display_order=order)
    placed = await add_field(sessions, "y", display_order=None)
    assert placed.display_order == 6
    keys, cursor = [], None
    async with sessions() as session:
        while True:
            page, cursor = await repo.list_fields(session, limit=2, cursor=cursor)
            keys.append([f.key for f in page])
            if cursor is None:
                break
    assert keys == [["z", "b"], ["c", "a"], ["y"]]


async def test_a_value_is_upserted_and_deleted(sessions: Sessions, person: uuid.UUID) -> None:
    desk = await add_field(sessions, "desk")
    for text in ("B-12", "C-3"):
        async with sessions.begin() as session:
            await repo.set_value(session, person, desk.id, text, unique=False)
    async with sessions() as session:
        assert await repo.value_texts(session, person) == {desk.id: "C-3"}
    async with sessions.begin() as session:
        await repo.set_value(session, person, desk.id, None, unique=False)
        await repo.set_value(session, person, desk.id, None, unique=False)  # nothing left
    assert await count(sessions, ProfileValue) == 0


async def test_a_value_of_a_field_that_is_not_unique_may_be_shared(sessions: Sessions) -> None:
    floor = await add_field(sessions, "floor")
    people = [await new_person(sessions) for _ in range(3)]
    for who in people:
        async with sessions.begin() as session:
            await repo.set_value(session, who, floor.id, "3", unique=False)
    assert await count(sessions, ProfileValue, ProfileValue.value == "3") == 3


async def test_a_unique_value_held_by_one_cannot_be_given_to_another(sessions: Sessions) -> None:
    badge = await add_field(sessions, "badge", unique=True)
    ada, bob = await new_person(sessions), await new_person(sessions)
    async with sessions.begin() as session:
        await repo.set_value(session, ada, badge.id, "B-1", unique=True)
        await repo.set_value(session, bob, badge.id, "B-2", unique=True)
        await repo.set_value(session, ada, badge.id, "B-1", unique=True)  # own value again
    async with sessions.begin() as session:
        with pytest.raises(ValueTaken):
            await repo.set_value(session, bob, badge.id, "B-1", unique=True)  # an update
    async with sessions() as session:
        assert await repo.value_texts(session, bob) == {badge.id: "B-2"}
    async with sessions.begin() as session:
        await repo.set_value(session, ada, badge.id, None, unique=True)
        await repo.set_value(session, bob, badge.id, "B-1", unique=True)  # freed: allowed
    async with sessions() as session:
        assert await repo.value_texts(session, bob) == {badge.id: "B-1"}


async def test_of_concurrent_writers_of_one_unique_value_one_wins(sessions: Sessions) -> None:
    badge = await add_field(sessions, "badge", unique=True)
    people = [await new_person(sessions) for _ in range(RACERS)]

    async def claim(session: AsyncSession, index: int) -> uuid.UUID:
        await repo.set_value(session, people[index], badge.id, "B-1", unique=True)
        return people[index]

    outcomes = await race(sessions, claim)
    (winner,) = [o for o in outcomes if isinstance(o, uuid.UUID)]
    assert all(isinstance(o, ValueTaken) for o in outcomes if o != winner)
    assert await count(sessions, ProfileValue) == 1
    async with sessions() as session:
        assert await repo.value_texts(session, winner) == {badge.id: "B-1"}


async def test_the_second_writer_of_a_unique_value_waits_for_the_first(
    sessions: Sessions,
) -> None:
    badge = await add_field(sessions, "badge", unique=True)
    ada, bob, cy = [await new_person(sessions) for _ in range(3)]

    async def write(who: uuid.UUID, value: str) -> None:
        async with sessions.begin() as session:
            await repo.set_value(session, who, badge.id, value, unique=True)

    for first_commits, later, value in ((False, bob, "B-1"), (True, cy, "B-2")):
        session = sessions()
        async with session:
            transaction = await session.begin()
            await repo.set_value(session, ada, badge.id, value, unique=True)
            second = asyncio.create_task(write(later, value))
            await until_waiting(sessions)  # on the first writer's index entry
            assert not second.done()
            await (transaction.commit() if first_commits else transaction.rollback())
        (outcome,) = await asyncio.gather(second, return_exceptions=True)
        assert isinstance(outcome, ValueTaken) if first_commits else outcome is None
    async with sessions() as session:  # ada rolled back B-1 (bob's now), committed B-2
        assert await repo.value_texts(session, ada) == {badge.id: "B-2"}
        assert await repo.value_texts(session, bob) == {badge.id: "B-1"}
        assert await repo.value_texts(session, cy) == {}


async def test_a_deleted_field_takes_its_values(sessions: Sessions, person: uuid.UUID) -> None:
    desk, floor = await add_field(sessions, "desk"), await add_field(sessions, "floor")
    async with sessions.begin() as session:
        await repo.set_value(session, person, desk.id, "B-12", unique=False)
        await repo.set_value(session, person, floor.id, "3", unique=False)
        await repo.delete_field(session, desk.id)
    async with sessions() as session:
        assert await repo.get_field(session, desk.id) is None
        assert await repo.value_texts(session, person) == {floor.id: "3"}


async def test_a_person_sees_global_fields_and_those_of_their_groups(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as session:
        staff = await groups.create_group(session, name="staff", description="")
        guests = await groups.create_group(session, name="guests", description="")
        await groups.add_members(session, str(staff.id), [str(person)])
    await add_field(sessions, "desk", group_id=staff.id, display_order=2)
    await add_field(sessions, "visa", group_id=guests.id, display_order=1)
    await add_field(sessions, "floor", display_order=3)
    async with sessions() as session:
        assert [f.key for f in await repo.fields_of_user(session, person)] == ["desk", "floor"]
        assert await repo.group_exists(session, staff.id)
        assert not await repo.group_exists(session, uuid.uuid4())
    async with sessions.begin() as session:
        await groups.delete_group(session, str(staff.id))
    async with sessions() as session:
        assert [f.key for f in await repo.fields_of_user(session, person)] == ["floor"]
