"""Contract of :mod:`admin_service.repos.groups` against Postgres: names unique even
under racing creates, concurrent adds and removes of one member leaving one row or none
(and the count the group shows agreeing), a member added once however many add them,
roles replaced whole, and a deleted group taking its memberships and role links."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from admin_service.repos import groups
from admin_service.repos.groups import GroupRead
from idp_common.errors import FieldError, InvalidArgument, NotFound
from idp_common.storage.db.models import GroupMember, GroupRole
from idp_common.storage.repos import roles
from libs.common.tests.conformance import catalogue_fixtures as fx
from libs.common.tests.conformance.catalogue_fixtures import Sessions

pytestmark = pytest.mark.integration
make_database, fresh_database_url, catalogue = fx.make_database, fx.fresh_database_url, fx.catalogue


async def new_group(sessions: Sessions) -> str:
    async with sessions.begin() as session:
        return str((await groups.create_group(session, name="shoppers", description="")).id)


async def members(sessions: Sessions, group: str) -> set[uuid.UUID]:
    async with sessions() as session:
        rows = await session.scalars(
            select(GroupMember.user_id).where(GroupMember.group_id == uuid.UUID(group))
        )
        return set(rows)


async def test_of_racing_creates_of_one_name_one_wins(catalogue: Sessions) -> None:
    def create(session: AsyncSession, _: int) -> Awaitable[GroupRead]:
        return groups.create_group(session, name="shoppers", description="")

    assert await fx.race_codes(catalogue, create, GroupRead) == {"admin.group_name_taken"}


async def test_racing_adds_of_one_member_add_them_once(catalogue: Sessions) -> None:
    group, person = await new_group(catalogue), await fx.add_person(catalogue)

    async def join(session: AsyncSession, _: int) -> list[uuid.UUID]:
        return (await groups.add_members(session, group, [str(person), str(person)]))[1]

    outcomes = await fx.in_parallel(catalogue, join)
    assert sorted(len(o) for o in outcomes if isinstance(o, list)) == [0] * 9 + [1]
    assert await members(catalogue, group) == {person}


async def test_racing_adds_and_removes_of_one_member_stay_consistent(catalogue: Sessions) -> None:
    group, person = await new_group(catalogue), await fx.add_person(catalogue)

    async def toggle(session: AsyncSession, index: int) -> object:
        if index % 2:
            return await groups.remove_member(session, group, str(person))
        return await groups.add_members(session, group, [str(person)])

    outcomes = await fx.in_parallel(catalogue, toggle)
    assert all(not isinstance(o, Exception) or isinstance(o, NotFound) for o in outcomes)
    found = await members(catalogue, group)
    assert found in (set(), {person})
    async with catalogue() as session:
        assert (await groups.get_group(session, group)).member_count == len(found)


async def test_unknown_members_and_roles_are_named_and_change_nothing(catalogue: Sessions) -> None:
    group, person = await new_group(catalogue), await fx.add_person(catalogue)
    async with catalogue.begin() as session:
        with pytest.raises(InvalidArgument) as refused:
            await groups.add_members(session, group, [str(person), "nobody", str(uuid.uuid4())])
    assert [e.field for e in refused.value.errors] == ["members[1]", "members[2]"]
    async with catalogue.begin() as session:
        with pytest.raises(InvalidArgument) as refused:
            await groups.set_group_roles(session, group, ["x"])
    assert refused.value.errors == [FieldError("roles[0]", "no role with this id")]
    assert await members(catalogue, group) == set()
    async with catalogue.begin() as session:
        with pytest.raises(NotFound):
            await groups.remove_member(session, group, str(person))


async def test_roles_are_replaced_whole_and_give_their_scopes(catalogue: Sessions) -> None:
    group = await new_group(catalogue)
    async with catalogue.begin() as session:
        buyer = await roles.create_role(session, name="buyer", description="")
        seller = await roles.create_role(session, name="seller", description="")
        await roles.set_role_scopes(session, str(buyer.id), ["shop:orders:write"])
        await roles.set_role_scopes(session, str(seller.id), ["shop:items:read"])
        _, added = await groups.set_group_roles(session, group, [str(buyer.id)])
        read, added_next = await groups.set_group_roles(
            session, group, [str(seller.id), str(buyer.id), str(seller.id)]
        )
        given = await groups.group_scope_values(session, read.id)
    assert added == [buyer.id] and added_next == [seller.id]
    assert [r.name for r in read.roles] == ["buyer", "seller"]
    assert given == {"shop:orders:write", "shop:items:read"}


async def test_deleting_a_group_takes_its_members_and_role_links(catalogue: Sessions) -> None:
    group, person = await new_group(catalogue), await fx.add_person(catalogue)
    async with catalogue.begin() as session:
        role = await roles.create_role(session, name="buyer", description="")
        await groups.set_group_roles(session, group, [str(role.id)])
        await groups.add_members(session, group, [str(person)])
        await groups.delete_group(session, group)
    async with catalogue() as session:
        for link in (GroupMember, GroupRole):
            assert await session.scalar(select(func.count()).select_from(link)) == 0
        with pytest.raises(NotFound):
            await groups.get_group(session, group)
