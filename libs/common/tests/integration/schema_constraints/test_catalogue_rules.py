"""Rules the database enforces on the catalogue and users: claim names, data and client
types, one secret per client, unique email and username."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.storage.db.models import (
    Client,
    ClientSecret,
    User,
)
from libs.common.tests.integration.schema_constraints.support import (
    CHECK_VIOLATION,
    UNIQUE_VIOLATION,
    _field,
    add,
    violation,
)

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("claim_name", "claim_scope"),
    [("department", None), (None, "hr:profile:read")],
)
async def test_claim_name_and_scope_come_together(
    sessions: async_sessionmaker[AsyncSession], claim_name: str | None, claim_scope: str | None
) -> None:
    with pytest.raises(IntegrityError) as error:
        await _field(sessions, unique=False, claim_name=claim_name, claim_scope=claim_scope)

    assert violation(error.value) == (CHECK_VIOLATION, "ck_profile_fields_claim_pair")


async def test_claim_pair_is_accepted_and_claim_name_is_unique(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    await _field(sessions, unique=False, claim_name="department", claim_scope="hr:read")

    with pytest.raises(IntegrityError) as error:
        await _field(sessions, unique=False, claim_name="department", claim_scope="hr:read")

    assert violation(error.value) == (UNIQUE_VIOLATION, "uq_profile_fields_claim_name")


async def test_unknown_data_type_is_refused(sessions: async_sessionmaker[AsyncSession]) -> None:
    with pytest.raises(IntegrityError) as error:
        await _field(sessions, unique=False, data_type="float")

    assert violation(error.value) == (CHECK_VIOLATION, "ck_profile_fields_data_type")


async def test_unknown_client_type_is_refused(sessions: async_sessionmaker[AsyncSession]) -> None:
    with pytest.raises(IntegrityError) as error:
        await add(sessions, Client(client_id="c", name="C", type="hybrid", grant_types=[]))

    assert violation(error.value) == (CHECK_VIOLATION, "ck_clients_type")


async def test_a_client_has_at_most_one_secret(sessions: async_sessionmaker[AsyncSession]) -> None:
    client = Client(
        client_id="c", name="C", type="confidential", grant_types=["client_credentials"]
    )
    await add(sessions, client)
    await add(sessions, ClientSecret(client_pk=client.id, digest=b"1" * 32))

    with pytest.raises(IntegrityError) as error:
        await add(sessions, ClientSecret(client_pk=client.id, digest=b"2" * 32))

    assert violation(error.value) == (UNIQUE_VIOLATION, "uq_client_secrets_client_pk")


@pytest.mark.parametrize(
    ("column", "first", "second", "constraint"),
    [
        ("email", "Alice@Example.com", "alice@example.COM", "uq_users_email_lower"),
        ("username", "Alice", "ALICE", "uq_users_username_lower"),
    ],
)
async def test_email_and_username_are_unique_case_insensitively(
    sessions: async_sessionmaker[AsyncSession],
    column: str,
    first: str,
    second: str,
    constraint: str,
) -> None:
    defaults = {"email": f"{uuid.uuid4().hex}@example.com", "username": None}
    await add(sessions, User(**{**defaults, column: first}))
    defaults["email"] = f"{uuid.uuid4().hex}@example.com"

    with pytest.raises(IntegrityError) as error:
        await add(sessions, User(**{**defaults, column: second}))

    assert violation(error.value) == (UNIQUE_VIOLATION, constraint)
    async with sessions() as session:
        stored = await session.scalar(select(getattr(User, column)))
    assert stored == first  # the spelling is kept


async def test_many_users_may_have_no_username(sessions: async_sessionmaker[AsyncSession]) -> None:
    await add(sessions, User(email="a@example.com"), User(email="b@example.com"))
