"""Contract of :mod:`idp_common.storage.repos.users` and :mod:`.user_grants` against Postgres:
addresses and usernames unique case-insensitively even under concurrent writers, the row
lock serialising writers, ``updated_at`` and verification following a change, grants
replaced whole, and a deleted person taking their credentials with them."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import InvalidArgument
from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from idp_common.storage.db.models import Role, Scope
from idp_common.storage.repos import credentials, user_grants, users
from idp_common.storage.repos.users import IdentifierTaken, UserAccount
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import RACERS, Sessions, new_person, race

pytestmark = pytest.mark.integration
# The fixtures, by the names the tests ask for.
make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions
person = people_fixtures.person


async def create(session: AsyncSession, email: str, username: str | None = None) -> UserAccount:
    return await users.create_user(
        session, email=email, username=username, display_name="", password_hash="$argon2id$x"
    )


async def test_addresses_and_usernames_are_unique_whatever_the_case(sessions: Sessions) -> None:
    async with sessions.begin() as session:
        await create(session, "Ada@Example.test", "Ada")
    for email, username, field in (
        ("ada@example.TEST", None, "email"),
        ("other@example.test", "ADA", "username"),
    ):
        async with sessions.begin() as session:
            with pytest.raises(IdentifierTaken) as taken:
                await create(session, email, username)
        assert taken.value.field == field
    async with sessions() as session:
        found = await users.get_user_by_email(session, " ADA@example.test ")
        assert await users.username_in_use(session, "aDA")
        assert not await users.username_in_use(session, "grace")
    assert found is not None and found.email == "Ada@Example.test"


async def test_of_concurrent_creations_of_one_address_one_wins(sessions: Sessions) -> None:
    async def sign_up(session: AsyncSession, index: int) -> UserAccount:
        return await create(session, "Race@example.test" if index % 2 else "race@EXAMPLE.test")

    outcomes = await race(sessions, sign_up)
    assert sum(isinstance(o, UserAccount) for o in outcomes) == 1
    assert all(isinstance(o, UserAccount | IdentifierTaken) for o in outcomes)


async def test_a_new_mailbox_is_unverified_and_updated_at_moves(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as session:
        before = await users.update_user(session, person, {"email_verified": True})
    assert before is not None and before.email_verified
    async with sessions.begin() as session:
        same_mailbox = await users.update_user(session, person, {"email": before.email.upper()})
    assert same_mailbox is not None and same_mailbox.email_verified
    assert same_mailbox.updated_at > before.updated_at
    async with sessions.begin() as session:
        moved = await users.update_user(session, person, {"email": "elsewhere@example.test"})
        assert moved is not None and not moved.email_verified
        assert await users.update_user(session, uuid.uuid4(), {"display_name": "x"}) is None
        with pytest.raises(ValueError, match="not changeable"):
            await users.update_user(session, person, {"id": uuid.uuid4()})


async def test_the_row_lock_makes_writers_to_one_person_wait(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as first:
        assert await users.lock_user(first, person) is not None

        async def second_writer() -> None:
            async with sessions.begin() as second:
                await users.lock_user(second, person)

        waiting = asyncio.create_task(second_writer())
        await asyncio.sleep(0.3)
        assert not waiting.done()
    await asyncio.wait_for(waiting, timeout=5)


async def test_grants_are_replaced_whole_and_unknown_ones_named(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async with sessions.begin() as session:
        role = Role(name="editors", description="")
        scope = Scope(value="docs:write", description="")
        session.add_all([role, scope])
    async with sessions.begin() as session:
        with pytest.raises(InvalidArgument) as refused:
            await user_grants.set_user_roles(session, person, [str(role.id), "x", str(person)])
    assert [e.field for e in refused.value.errors] == ["roles[1]", "roles[2]"]
    async with sessions.begin() as session:
        assert await user_grants.set_user_roles(session, person, [str(role.id)]) == [
            user_grants.RoleRef(id=role.id, name="editors")
        ]
        await user_grants.give_role(session, person, role.id)  # already given: no error
        assert await user_grants.set_user_scopes(session, person, ["docs:write"]) == ["docs:write"]
        with pytest.raises(InvalidArgument):
            await user_grants.set_user_scopes(session, person, ["nope"])
    async with sessions.begin() as session:
        assert await user_grants.user_scopes(session, person) == ["docs:write"]
        held = await users.effective_scopes(session, person)
        assert held == {"docs:write", *SELF_SERVICE_SCOPES}
        assert await user_grants.set_user_scopes(session, person, []) == []
        assert await user_grants.user_scopes(session, person) == []


async def test_a_deleted_person_takes_their_credentials(sessions: Sessions) -> None:
    person = await new_person(sessions, password_hash="$argon2id$x")
    async with sessions.begin() as session:
        await users.delete_user(session, person)
    async with sessions() as session:
        assert await users.get_user(session, person) is None
        assert await credentials.get_password_hash(session, person) is None
        assert await users.get_user(session, "not-a-uuid") is None


async def test_listing_pages_by_lower_email(sessions: Sessions) -> None:
    async with sessions.begin() as session:
        for name in ("b", "A", "c", "a_"):
            await create(session, f"{name}@list.test")
    async with sessions() as session:
        first = await users.list_users(session, email=None, username=None, limit=2, cursor=None)
        rest = await users.list_users(
            session, email=None, username=None, limit=RACERS, cursor=first.next_cursor
        )
        literal = await users.list_users(session, email="a_", username=None, limit=9, cursor=None)
    emails = [u.email for u in first.items + rest.items]
    assert emails == ["A@list.test", "a_@list.test", "b@list.test", "c@list.test"]
    assert rest.next_cursor is None
    assert [u.email for u in literal.items] == ["a_@list.test"]
