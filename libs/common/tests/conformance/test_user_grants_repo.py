"""Contract of :mod:`idp_common.storage.repos.user_grants` against Postgres: ``give_role``
idempotent even under 20 concurrent givers, replacements of a person's roles and
scopes whole (an unknown one refused before anything is written; racing replacements under
the person's lock leave the last whole set), and the effective scopes the union of direct
grants, roles, the roles of the person's groups and the self-service scopes."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from admin_service.repos import groups
from idp_common.errors import InvalidArgument
from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from idp_common.storage.db.models import UserRole, UserScope
from idp_common.storage.repos import roles, users
from idp_common.storage.repos import user_grants as repo
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import Sessions, new_person, race
from libs.common.tests.conformance.shared_fixtures import add_group, add_role, add_shop, count

pytestmark = pytest.mark.integration
make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions
person = people_fixtures.person
READ, WRITE, ITEMS = "shop:orders:read", "shop:orders:write", "shop:items:read"


async def test_of_concurrent_gifts_of_one_role_one_row_stands(
    sessions: Sessions, person: uuid.UUID
) -> None:
    await add_shop(sessions)
    role = await add_role(sessions, "buyer", [READ])

    async def give(session: AsyncSession, _: int) -> None:
        await repo.give_role(session, person, role)

    assert [o for o in await race(sessions, give) if isinstance(o, BaseException)] == []
    async with sessions.begin() as session:
        await repo.give_role(session, person, role)  # once more, later: still nothing new
        assert await repo.user_roles(session, person) == [repo.RoleRef(id=role, name="buyer")]
    assert await count(sessions, UserRole) == 1


async def test_a_replacement_is_whole_and_an_unknown_grant_writes_nothing(
    sessions: Sessions, person: uuid.UUID
) -> None:
    await add_shop(sessions)
    buyer, seller = await add_role(sessions, "buyer", []), await add_role(sessions, "seller", [])
    async with sessions.begin() as session:
        assert await repo.set_user_scopes(session, person, [WRITE, READ, READ]) == [READ, WRITE]
        await repo.set_user_roles(session, person, [str(buyer), str(seller)])
    async with sessions.begin() as session:
        assert await repo.set_user_scopes(session, person, [ITEMS]) == [ITEMS]
        await repo.set_user_roles(session, person, [str(seller)])
    async with sessions.begin() as session:
        with pytest.raises(InvalidArgument) as refused:
            await repo.set_user_scopes(session, person, [READ, "shop:nothing"])
        assert [e.field for e in refused.value.errors] == ["scopes[1]"]
        with pytest.raises(InvalidArgument) as refused:
            await repo.set_user_roles(session, person, [str(buyer), str(uuid.uuid4())])
        assert [e.field for e in refused.value.errors] == ["roles[1]"]
        # Refused before the DELETE: the open transaction still holds the old sets.
        assert await repo.user_scopes(session, person) == [ITEMS]
        assert await repo.user_roles(session, person) == [repo.RoleRef(id=seller, name="seller")]
    assert await count(sessions, UserScope) == 1
    async with sessions.begin() as session:
        assert await repo.set_user_scopes(session, person, []) == []
        assert await repo.set_user_roles(session, person, []) == []
    assert await count(sessions, UserScope) + await count(sessions, UserRole) == 0


async def test_racing_replacements_under_the_lock_leave_one_whole_set(
    sessions: Sessions, person: uuid.UUID
) -> None:
    await add_shop(sessions)
    role_ids = [await add_role(sessions, f"r{i}", []) for i in range(3)]
    scope_sets = [[READ], [WRITE, ITEMS], [READ, WRITE, ITEMS]]
    role_sets = [[role_ids[0]], role_ids[1:], role_ids]

    async def replace(session: AsyncSession, index: int) -> None:
        assert await users.lock_user(session, person) is not None
        await repo.set_user_scopes(session, person, scope_sets[index % 3])
        await repo.set_user_roles(session, person, [str(r) for r in role_sets[index % 3]])

    assert [o for o in await race(sessions, replace) if isinstance(o, BaseException)] == []
    async with sessions() as session:
        scopes = await repo.user_scopes(session, person)
        given = [r.id for r in await repo.user_roles(session, person)]
    last = [sorted(s) for s in scope_sets].index(scopes)  # a whole set, not a mixture
    assert sorted(given) == sorted(role_sets[last])  # of the same (the last) replacement


async def test_effective_scopes_join_every_grant_path(sessions: Sessions) -> None:
    await add_shop(sessions)
    ada, bob, cy = [await new_person(sessions) for _ in range(3)]
    reader, writer = (
        await add_role(sessions, "reader", [READ]),
        await add_role(sessions, "w", [WRITE]),
    )
    browser = await add_role(sessions, "browser", [ITEMS])
    staff = await add_group(sessions, "staff", [writer], [ada, bob])
    await add_group(sessions, "guests", [browser], [])  # nobody's group
    async with sessions.begin() as session:
        await repo.give_role(session, ada, reader)
        await repo.set_user_scopes(session, bob, [ITEMS])
        await repo.give_role(session, bob, writer)  # the same scope by two paths
    async with sessions() as session:
        held = {who: await repo.effective_scopes(session, who) for who in (ada, bob, cy)}
        unknown = await repo.effective_scopes(session, uuid.uuid4())
    defaults = set(SELF_SERVICE_SCOPES)
    assert held == {ada: {READ, WRITE} | defaults, bob: {ITEMS, WRITE} | defaults, cy: defaults}
    assert unknown == defaults
    async with sessions.begin() as session:
        await groups.remove_member(session, str(staff), str(ada))
        await repo.set_user_roles(session, bob, [])
    async with sessions() as session:
        assert await repo.effective_scopes(session, ada) == {READ} | defaults
        assert await repo.effective_scopes(session, bob) == {ITEMS, WRITE} | defaults


async def test_a_change_to_a_given_role_counts_at_once(
    sessions: Sessions, person: uuid.UUID
) -> None:
    await add_shop(sessions)
    role = await add_role(sessions, "buyer", [READ])
    async with sessions.begin() as session:
        await repo.give_role(session, person, role)
    assert await count(sessions, UserRole, UserRole.user_id == person) == 1
    async with sessions.begin() as session:
        await roles.set_role_scopes(session, str(role), [READ, ITEMS])
    async with sessions() as session:
        assert await repo.effective_scopes(session, person) == {READ, ITEMS, *SELF_SERVICE_SCOPES}
