"""Contract of :mod:`idp_common.storage.repos.roles` (and the named-entry core of
:mod:`.catalogue`) against Postgres: names unique even under racing creates and renames,
scope sets replaced whole under the role's lock, only permissions of an API granted, the
seeded administrator role kept, a deleted role taking every grant of it in one
transaction, and the operator tool's form idempotent."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from admin_service.repos import groups
from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.storage.db.models import GroupRole, RoleScope, UserRole
from idp_common.storage.repos import roles
from idp_common.storage.repos.roles import RoleRead
from libs.common.tests.conformance import catalogue_fixtures as fx
from libs.common.tests.conformance.catalogue_fixtures import Sessions

pytestmark = pytest.mark.integration
make_database, fresh_database_url, catalogue = fx.make_database, fx.fresh_database_url, fx.catalogue


async def new_role(sessions: Sessions, name: str) -> str:
    async with sessions.begin() as session:
        return str((await roles.create_role(session, name=name, description="")).id)


async def test_of_racing_creates_of_one_name_one_wins(catalogue: Sessions) -> None:
    def create(session: AsyncSession, _: int) -> Awaitable[RoleRead]:
        return roles.create_role(session, name="buyer", description="")

    assert await fx.race_codes(catalogue, create, RoleRead) == {"admin.role_name_taken"}


async def test_of_racing_renames_to_one_name_one_wins(catalogue: Sessions) -> None:
    ids = [await new_role(catalogue, f"r{i}") for i in range(fx.RACERS)]

    async def rename(session: AsyncSession, index: int) -> tuple[RoleRead, list[str]]:
        return await roles.update_role(session, ids[index], name="chosen", description=None)

    outcomes = await fx.in_parallel(catalogue, rename)
    assert sum(isinstance(o, tuple) for o in outcomes) == 1
    assert all(isinstance(o, tuple | Conflict) for o in outcomes)


async def test_racing_scope_replaces_leave_one_whole_set(catalogue: Sessions) -> None:
    role = await new_role(catalogue, "buyer")
    values = sorted(fx.SHOP_SCOPES)
    choices = [values[:1], values[1:], values]

    async def replace(session: AsyncSession, index: int) -> object:
        return await roles.set_role_scopes(session, role, choices[index % 3])

    assert not [o for o in await fx.in_parallel(catalogue, replace) if isinstance(o, Exception)]
    async with catalogue() as session:
        assert (await roles.get_role(session, role)).scopes in choices


async def test_only_permissions_of_an_api_are_granted_and_added_ones_reported(
    catalogue: Sessions,
) -> None:
    role = await new_role(catalogue, "buyer")
    async with catalogue.begin() as session:
        with pytest.raises(InvalidArgument) as refused:
            await roles.set_role_scopes(session, role, ["shop:orders:read", "openid"])
    assert refused.value.code == "admin.unknown_scope"
    assert refused.value.errors == [FieldError("scopes[1]", "not a permission of any API")]
    async with catalogue.begin() as session:
        await roles.set_role_scopes(session, role, ["shop:orders:read"])
        read, added = await roles.set_role_scopes(
            session, role, ["shop:orders:write", "shop:orders:read", "shop:orders:write"]
        )
    assert added == ["shop:orders:write"]
    assert read.scopes == ["shop:orders:read", "shop:orders:write"]


async def test_the_administrator_role_keeps_its_name_and_stays(catalogue: Sessions) -> None:
    async with catalogue.begin() as session:
        await roles.ensure_role(session, name=roles.ADMIN_ROLE, description="", scopes=[])
    async with catalogue() as session:
        page = await roles.list_roles(session, limit=5, cursor=None)
    admin = str(page.items[0].id)
    for attempt in (
        lambda s: roles.update_role(s, admin, name="boss", description=None),
        lambda s: roles.delete_role(s, admin),
    ):
        async with catalogue.begin() as session:
            with pytest.raises(Conflict) as refused:
                await attempt(session)
        assert refused.value.code == "admin.role_protected"
    async with catalogue.begin() as session:
        _, changed = await roles.update_role(session, admin, name=None, description="All")
    assert changed == ["description"]


async def test_deleting_a_role_takes_every_grant_of_it(catalogue: Sessions) -> None:
    role = await new_role(catalogue, "buyer")
    person = await fx.add_person(catalogue)
    async with catalogue.begin() as session:
        group = await groups.create_group(session, name="shoppers", description="")
        await roles.set_role_scopes(session, role, list(fx.SHOP_SCOPES))
        await groups.set_group_roles(session, str(group.id), [role])
        session.add(UserRole(user_id=person, role_id=uuid.UUID(role)))
        assert await roles.delete_role(session, role)
    async with catalogue() as session:
        for link in (RoleScope, GroupRole, UserRole):
            assert await session.scalar(select(func.count()).select_from(link)) == 0
        with pytest.raises(NotFound):
            await roles.get_role(session, role)


async def test_the_operator_form_is_idempotent(catalogue: Sessions) -> None:
    granted = []
    for _ in range(2):
        async with catalogue.begin() as session:
            granted.append(
                await roles.ensure_role(
                    session, name="buyer", description="Buys", scopes=[*fx.SHOP_SCOPES, "nothing"]
                )
            )
    assert granted == [len(fx.SHOP_SCOPES), 0]
