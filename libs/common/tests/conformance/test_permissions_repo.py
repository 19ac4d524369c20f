"""Contract of :mod:`idp_common.storage.repos.permissions` against Postgres: every scope a
person holds with all of its sources (direct first, then roles by name, then groups by
name), read in one query whatever the number of roles and groups, the same set of values as
``effective_scopes``; the self-service scopes held by everyone, an unknown person included;
and the bearer guard's question, whether a person exists and is not disabled."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from admin_service.repos import groups
from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from idp_common.storage.repos import user_grants, users
from idp_common.storage.repos.apis import ensure_api
from idp_common.storage.repos.permissions import (
    DefaultSource,
    DirectSource,
    EffectiveScope,
    GroupSource,
    RoleSource,
    list_scope_sources,
    person_is_active,
)
from libs.common.tests.conformance import tokens_fixtures
from libs.common.tests.conformance.people_fixtures import Sessions, new_person
from libs.common.tests.conformance.shared_fixtures import add_group, add_role, add_shop
from libs.common.tests.conformance.tokens_fixtures import Db

pytestmark = pytest.mark.integration
make_database = tokens_fixtures.make_database
fresh_database_url = tokens_fixtures.fresh_database_url
sessions = tokens_fixtures.sessions
db = tokens_fixtures.db
READ, WRITE, ITEMS = "shop:orders:read", "shop:orders:write", "shop:items:read"
DEFAULTS = [EffectiveScope(scope=s, sources=[DefaultSource()]) for s in sorted(SELF_SERVICE_SCOPES)]


@contextmanager
def statements_counted(sessions: Sessions) -> Iterator[list[str]]:
    """The SQL statements the sessions' engine runs inside the block."""
    engine = sessions.kw["bind"].sync_engine
    seen: list[str] = []

    def note(*args: Any) -> None:
        seen.append(args[2])

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", note)


async def test_every_source_of_every_scope_in_order(sessions: Sessions) -> None:
    await add_shop(sessions)
    ada, bob = await new_person(sessions), await new_person(sessions)
    zeta, alpha = (
        await add_role(sessions, "zeta", [READ, WRITE]),
        await add_role(sessions, "alpha", [READ]),
    )
    staff = await add_group(sessions, "staff", [zeta, alpha], [ada])
    admins = await add_group(sessions, "admins", [alpha], [ada, bob])
    async with sessions.begin() as session:
        await user_grants.set_user_scopes(session, ada, [READ])
        await user_grants.give_role(session, ada, zeta)
        await user_grants.give_role(session, ada, alpha)
    async with sessions() as session:
        held = await list_scope_sources(session, ada)
    assert [s for s in held if s.scope.startswith("shop:")] == [
        EffectiveScope(
            scope=READ,
            sources=[
                DirectSource(),
                RoleSource(role_id=alpha, role_name="alpha"),
                RoleSource(role_id=zeta, role_name="zeta"),
                GroupSource(group_id=admins, group_name="admins", role_id=alpha, role_name="alpha"),
                GroupSource(group_id=staff, group_name="staff", role_id=alpha, role_name="alpha"),
                GroupSource(group_id=staff, group_name="staff", role_id=zeta, role_name="zeta"),
            ],
        ),
        EffectiveScope(
            scope=WRITE,
            sources=[
                RoleSource(role_id=zeta, role_name="zeta"),
                GroupSource(group_id=staff, group_name="staff", role_id=zeta, role_name="zeta"),
            ],
        ),
    ]
    assert [s for s in held if not s.scope.startswith("shop:")] == DEFAULTS
    assert [s.scope for s in held] == sorted(s.scope for s in held)
    async with sessions() as session:
        bobs = await list_scope_sources(session, bob)
    assert [s for s in bobs if s.scope.startswith("shop:")] == [
        EffectiveScope(
            scope=READ,
            sources=[
                GroupSource(group_id=admins, group_name="admins", role_id=alpha, role_name="alpha")
            ],
        )
    ]


async def test_the_values_are_those_of_effective_scopes(sessions: Sessions) -> None:
    await add_shop(sessions)
    people = [await new_person(sessions) for _ in range(4)]
    buyer, seller = (
        await add_role(sessions, "buyer", [READ]),
        await add_role(sessions, "s", [WRITE]),
    )
    browser = await add_role(sessions, "browser", [ITEMS])
    await add_group(sessions, "g1", [seller], people[:2])
    await add_group(sessions, "g2", [browser, buyer], people[1:3])
    async with sessions.begin() as session:
        await user_grants.set_user_scopes(session, people[0], [ITEMS])
        await user_grants.set_user_roles(session, people[2], [str(seller)])
    for who in [*people, uuid.uuid4()]:
        async with sessions() as session:
            listed = {s.scope for s in await list_scope_sources(session, who)}
            assert listed == await users.effective_scopes(session, who)


async def test_a_self_service_scope_granted_directly_has_both_sources(sessions: Sessions) -> None:
    person, own = await new_person(sessions), sorted(SELF_SERVICE_SCOPES)[0]
    async with sessions.begin() as session:
        await ensure_api(session, name="idp", audience="https://idp.test", scopes={own: "Own"})
        await user_grants.set_user_scopes(session, person, [own])
    async with sessions() as session:
        held = await list_scope_sources(session, person)
    assert [s.sources for s in held if s.scope == own] == [[DirectSource(), DefaultSource()]]
    assert len(held) == len(SELF_SERVICE_SCOPES)


async def test_an_unknown_person_holds_only_the_defaults(sessions: Sessions) -> None:
    async with sessions() as session:
        assert await list_scope_sources(session, uuid.uuid4()) == DEFAULTS


async def test_one_query_whatever_the_number_of_roles_and_groups(sessions: Sessions) -> None:
    await add_shop(sessions)
    person = await new_person(sessions)
    role_ids = [await add_role(sessions, f"r{i}", [READ, ITEMS]) for i in range(6)]
    for i in range(4):
        await add_group(sessions, f"g{i}", role_ids[i:], [person])
    async with sessions.begin() as session:
        await user_grants.set_user_roles(session, person, [str(r) for r in role_ids])
    async with sessions() as session:
        await session.connection()  # the transaction's BEGIN is not the read
        with statements_counted(sessions) as seen:
            held = await list_scope_sources(session, person)
    assert len(seen) == 1
    (read,) = [s for s in held if s.scope == READ]
    assert len(read.sources) == 6 + (6 + 5 + 4 + 3)


async def test_a_person_is_active_while_present_and_enabled(db: Db) -> None:
    person = await new_person(db.sessions)
    async with db.hot.connection() as conn:
        assert await person_is_active(conn, person) is True
        assert await person_is_active(conn, uuid.uuid4()) is False
    async with db.sessions.begin() as session:
        await users.update_user(session, person, {"disabled": True})
    async with db.hot.connection() as conn:
        assert await person_is_active(conn, person) is False
    async with db.sessions.begin() as session:
        await users.update_user(session, person, {"disabled": False})
    async with db.hot.connection() as conn:
        assert await person_is_active(conn, person) is True
    async with db.sessions.begin() as session:
        await users.delete_user(session, person)
    async with db.hot.connection() as conn:
        assert await person_is_active(conn, person) is False


async def test_a_membership_ended_takes_its_sources(sessions: Sessions) -> None:
    await add_shop(sessions)
    person = await new_person(sessions)
    role = await add_role(sessions, "buyer", [READ])
    group = await add_group(sessions, "staff", [role], [person])
    async with sessions.begin() as session:
        await groups.remove_member(session, str(group), str(person))
    async with sessions() as session:
        assert await list_scope_sources(session, person) == DEFAULTS
