"""Deletes leave no orphans and keep other users' data; server defaults load without a
refresh."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.storage.db.models import (
    Base,
    Client,
    ProfileField,
    ProfileValue,
    User,
)
from libs.common.tests.integration.schema_constraints.support import (
    _dependents,
    _users,
    add,
    counts,
    populate,
    values,
)

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("parent", "must_vanish"),
    [
        (
            "users",
            {
                "profile_values",
                "user_roles",
                "group_members",
                "user_scopes",
                "consents",
                "photo_fingerprints",
                "passkeys",
            },
        ),
        ("clients", {"client_secrets", "client_scopes", "consents", "refresh_tokens", "brands"}),
        ("roles", {"role_scopes", "user_roles", "group_roles"}),
        ("groups", {"group_members", "group_roles", "profile_fields", "profile_values"}),
        ("apis", {"scopes", "client_scopes", "role_scopes", "user_scopes"}),
        ("scopes", {"client_scopes", "role_scopes", "user_scopes"}),
        ("profile_fields", {"profile_values"}),
    ],
)
async def test_deleting_a_parent_leaves_no_orphans(
    sessions: async_sessionmaker[AsyncSession], parent: str, must_vanish: set[str]
) -> None:
    """Every row that references the deleted row, directly or not, is deleted with it
    (not kept with a NULL reference): the dependent tables shrink by exactly that many."""
    ids = await populate(sessions)
    table = Base.metadata.tables[parent]
    condition = table.c.id == ids[parent]
    dependents = _dependents(table, condition)
    assert must_vanish <= set(dependents)

    async with sessions() as session:
        depending_before, total_before = await counts(session, dependents)
    assert all(depending_before.values()), depending_before  # the fixture covers every path

    async with sessions.begin() as session:
        await session.execute(delete(table).where(condition))

    async with sessions() as session:
        depending_after, total_after = await counts(session, dependents)
        assert await session.scalar(select(func.count()).select_from(table).where(condition)) == 0
    assert depending_after == dict.fromkeys(dependents, 0)
    assert total_after == {name: total_before[name] - depending_before[name] for name in dependents}


async def test_deleting_a_user_keeps_other_users_data(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ids = await populate(sessions)
    (other,) = await _users(sessions, 1)
    field = ids["profile_fields"]
    await add(sessions, ProfileValue(field_id=field, user_id=other, value="E-2", is_unique=True))

    async with sessions.begin() as session:
        await session.execute(delete(User).where(User.id == ids["users"]))

    assert await values(sessions, field) == ["E-2"]


async def test_server_defaults_are_loaded_without_a_refresh(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Server-generated values are readable after flush and commit, with no lazy load."""
    async with sessions.begin() as session:
        user = User(email="ada@example.com")
        session.add(user)
    assert isinstance(user.id, uuid.UUID)
    assert user.display_name == ""
    assert (user.email_verified, user.disabled) == (False, False)
    created = user.created_at
    assert created.tzinfo is not None

    async with sessions.begin() as session:
        user = await session.get_one(User, user.id)
        user.display_name = "Ada"
    assert user.updated_at >= created

    async with sessions.begin() as session:
        field = ProfileField(key="k", label="K")
        session.add(field)
    assert (field.data_type, field.is_unique, field.validators) == ("string", False, {})
    assert (field.user_readable, field.user_writable, field.display_order) == (True, False, 0)

    async with sessions.begin() as session:
        client = Client(client_id="c", name="C", type="public", grant_types=["authorization_code"])
        session.add(client)
    assert (client.redirect_uris, client.post_logout_redirect_uris) == ([], [])
