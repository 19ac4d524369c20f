"""Rules the database itself enforces: profile-value uniqueness, cascades, checks.

Every rule here must hold even for a writer that bypasses the repositories, so each test
talks to the tables directly through the models.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import ColumnElement, Table, delete, func, or_, select, tuple_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from idp_common.storage.db.engine import create_session_factory
from idp_common.storage.db.models import (
    Api,
    AuthorizationCode,
    Base,
    Client,
    ClientScope,
    ClientSecret,
    Consent,
    FaceTemplate,
    Group,
    GroupMember,
    GroupRole,
    PasswordCredential,
    PasswordResetToken,
    PhotoFingerprint,
    ProfileField,
    ProfileValue,
    RefreshToken,
    Role,
    RoleScope,
    Scope,
    TotpCredential,
    TotpRecoveryCode,
    User,
    UserRole,
    UserScope,
)

pytestmark = pytest.mark.integration

UNIQUE_VIOLATION = "23505"
FOREIGN_KEY_VIOLATION = "23503"
CHECK_VIOLATION = "23514"


@pytest.fixture
def sessions(migrated_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_factory(migrated_engine)


def _violation(error: IntegrityError) -> tuple[str, str]:
    """``(sqlstate, constraint name)`` of the asyncpg error behind ``error``."""
    cause: Any = error.orig.__cause__ if error.orig is not None else None
    return cause.sqlstate, cause.constraint_name


async def _add(sessions: async_sessionmaker[AsyncSession], *rows: Base) -> None:
    async with sessions.begin() as session:
        for row in rows:
            session.add(row)
            await session.flush()


async def _users(sessions: async_sessionmaker[AsyncSession], count: int) -> list[uuid.UUID]:
    users = [User(email=f"user{n}@example.com") for n in range(count)]
    await _add(sessions, *users)
    return [user.id for user in users]


async def _field(
    sessions: async_sessionmaker[AsyncSession], *, unique: bool, **kw: Any
) -> uuid.UUID:
    field = ProfileField(key=f"field_{uuid.uuid4().hex[:8]}", label="Field", is_unique=unique, **kw)
    await _add(sessions, field)
    return field.id


async def _values(sessions: async_sessionmaker[AsyncSession], field_id: uuid.UUID) -> list[str]:
    async with sessions() as session:
        query = select(ProfileValue.value).where(ProfileValue.field_id == field_id)
        return list(await session.scalars(query))


# --- profile value uniqueness -------------------------------------------------------


async def test_equal_values_of_a_unique_field_are_refused(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    alice, bob = await _users(sessions, 2)
    field = await _field(sessions, unique=True)
    await _add(sessions, ProfileValue(field_id=field, user_id=alice, value="E-1", is_unique=True))

    with pytest.raises(IntegrityError) as error:
        await _add(sessions, ProfileValue(field_id=field, user_id=bob, value="E-1", is_unique=True))

    assert _violation(error.value) == (UNIQUE_VIOLATION, "uq_profile_values_field_id_value")
    assert await _values(sessions, field) == ["E-1"]


async def test_equal_values_of_a_non_unique_field_are_accepted(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    alice, bob = await _users(sessions, 2)
    field = await _field(sessions, unique=False)

    await _add(
        sessions,
        ProfileValue(field_id=field, user_id=alice, value="Sales", is_unique=False),
        ProfileValue(field_id=field, user_id=bob, value="Sales", is_unique=False),
    )

    assert await _values(sessions, field) == ["Sales", "Sales"]


async def test_uniqueness_is_per_field(sessions: async_sessionmaker[AsyncSession]) -> None:
    alice, bob = await _users(sessions, 2)
    first, second = await _field(sessions, unique=True), await _field(sessions, unique=True)

    await _add(
        sessions,
        ProfileValue(field_id=first, user_id=alice, value="X", is_unique=True),
        ProfileValue(field_id=second, user_id=bob, value="X", is_unique=True),
    )


LOCK_WAIT_LIMIT = 10.0
"""Seconds to wait for the second writer to block before giving up."""


async def _wait_until_blocked_on_a_lock(engine: AsyncEngine) -> None:
    """Return once another backend of this database waits for a lock."""
    async with asyncio.timeout(LOCK_WAIT_LIMIT), engine.connect() as connection:
        while True:
            waiting = await connection.exec_driver_sql(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if waiting.scalar_one() > 0:
                return
            await connection.rollback()
            await asyncio.sleep(0.02)


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
            await _wait_until_blocked_on_a_lock(migrated_engine)
            assert not blocked.done()
            await first.commit()
        except BaseException:
            await first.rollback()  # releases the second writer
            raise
        finally:
            await asyncio.wait([blocked])
        with pytest.raises(IntegrityError) as error:
            blocked.result()

    assert _violation(error.value) == (UNIQUE_VIOLATION, "uq_profile_values_field_id_value")
    assert await _values(sessions, field) == ["E-7"]


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
    assert await _values(sessions, field) == ["same"]


@pytest.mark.parametrize("field_unique", [True, False])
async def test_is_unique_must_copy_the_field_flag(
    sessions: async_sessionmaker[AsyncSession], field_unique: bool
) -> None:
    (alice,) = await _users(sessions, 1)
    field = await _field(sessions, unique=field_unique)

    with pytest.raises(IntegrityError) as error:
        await _add(
            sessions,
            ProfileValue(field_id=field, user_id=alice, value="v", is_unique=not field_unique),
        )

    assert _violation(error.value) == (
        FOREIGN_KEY_VIOLATION,
        "fk_profile_values_field_id_is_unique_profile_fields",
    )


async def test_unique_flag_of_a_field_with_values_cannot_change(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    (alice,) = await _users(sessions, 1)
    field = await _field(sessions, unique=False)
    await _add(sessions, ProfileValue(field_id=field, user_id=alice, value="v", is_unique=False))

    with pytest.raises(IntegrityError) as error:
        async with sessions.begin() as session:
            await session.execute(
                update(ProfileField).where(ProfileField.id == field).values(is_unique=True)
            )

    assert _violation(error.value) == (
        FOREIGN_KEY_VIOLATION,
        "fk_profile_values_field_id_is_unique_profile_fields",
    )


# --- checks ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim_name", "claim_scope"),
    [("department", None), (None, "hr:profile:read")],
)
async def test_claim_name_and_scope_come_together(
    sessions: async_sessionmaker[AsyncSession], claim_name: str | None, claim_scope: str | None
) -> None:
    with pytest.raises(IntegrityError) as error:
        await _field(sessions, unique=False, claim_name=claim_name, claim_scope=claim_scope)

    assert _violation(error.value) == (CHECK_VIOLATION, "ck_profile_fields_claim_pair")


async def test_claim_pair_is_accepted_and_claim_name_is_unique(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    await _field(sessions, unique=False, claim_name="department", claim_scope="hr:read")

    with pytest.raises(IntegrityError) as error:
        await _field(sessions, unique=False, claim_name="department", claim_scope="hr:read")

    assert _violation(error.value) == (UNIQUE_VIOLATION, "uq_profile_fields_claim_name")


async def test_unknown_data_type_is_refused(sessions: async_sessionmaker[AsyncSession]) -> None:
    with pytest.raises(IntegrityError) as error:
        await _field(sessions, unique=False, data_type="float")

    assert _violation(error.value) == (CHECK_VIOLATION, "ck_profile_fields_data_type")


async def test_unknown_client_type_is_refused(sessions: async_sessionmaker[AsyncSession]) -> None:
    with pytest.raises(IntegrityError) as error:
        await _add(sessions, Client(client_id="c", name="C", type="hybrid", grant_types=[]))

    assert _violation(error.value) == (CHECK_VIOLATION, "ck_clients_type")


async def test_a_client_has_at_most_one_secret(sessions: async_sessionmaker[AsyncSession]) -> None:
    client = Client(
        client_id="c", name="C", type="confidential", grant_types=["client_credentials"]
    )
    await _add(sessions, client)
    await _add(sessions, ClientSecret(client_pk=client.id, digest=b"1" * 32))

    with pytest.raises(IntegrityError) as error:
        await _add(sessions, ClientSecret(client_pk=client.id, digest=b"2" * 32))

    assert _violation(error.value) == (UNIQUE_VIOLATION, "uq_client_secrets_client_pk")


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
    await _add(sessions, User(**{**defaults, column: first}))
    defaults["email"] = f"{uuid.uuid4().hex}@example.com"

    with pytest.raises(IntegrityError) as error:
        await _add(sessions, User(**{**defaults, column: second}))

    assert _violation(error.value) == (UNIQUE_VIOLATION, constraint)
    async with sessions() as session:
        stored = await session.scalar(select(getattr(User, column)))
    assert stored == first  # the spelling is kept


async def test_many_users_may_have_no_username(sessions: async_sessionmaker[AsyncSession]) -> None:
    await _add(sessions, User(email="a@example.com"), User(email="b@example.com"))


# --- cascades -------------------------------------------------------------------------


async def _populate(sessions: async_sessionmaker[AsyncSession]) -> dict[str, uuid.UUID]:
    """One row in every table, all linked together; returns the ids of the parents."""
    soon = datetime.now(UTC) + timedelta(minutes=5)
    api = Api(name="Payroll", audience="https://payroll.example")
    user = User(email="ada@example.com", username="ada")
    client = Client(client_id="app", name="App", type="confidential", grant_types=["refresh_token"])
    role = Role(name="payroll-reader")
    group = Group(name="finance")
    await _add(sessions, api, user, client, role, group)
    scope = Scope(api_id=api.id, value="payroll:slips:read", description="Read payslips")
    field = ProfileField(key="employee_no", label="Employee number", is_unique=True)
    field.group_id = group.id
    await _add(sessions, scope, field)
    await _add(
        sessions,
        PasswordCredential(user_id=user.id, hash="$argon2id$v=19$m=65536,t=3,p=4$x$y"),
        TotpCredential(user_id=user.id, secret_encrypted=b"secret"),
        TotpRecoveryCode(user_id=user.id, code_digest=b"code"),
        FaceTemplate(user_id=user.id, template_encrypted=b"face"),
        PhotoFingerprint(user_id=user.id, pixel_digest=b"pixels", embedding_encrypted=None),
        PasswordResetToken(token_digest=b"reset", user_id=user.id, expires_at=soon),
        ClientSecret(client_pk=client.id, digest=b"digest"),
        ClientScope(client_pk=client.id, scope_id=scope.id),
        RoleScope(role_id=role.id, scope_id=scope.id),
        GroupMember(group_id=group.id, user_id=user.id),
        GroupRole(group_id=group.id, role_id=role.id),
        UserRole(user_id=user.id, role_id=role.id),
        UserScope(user_id=user.id, scope_id=scope.id),
        ProfileValue(field_id=field.id, user_id=user.id, value="E-1", is_unique=True),
        Consent(user_id=user.id, client_pk=client.id, scopes=["openid"]),
        AuthorizationCode(
            code_digest=b"code",
            grant_id=uuid.uuid4(),
            client_pk=client.id,
            user_id=user.id,
            redirect_uri="https://app.example/cb",
            scope="openid",
            auth_time=datetime.now(UTC),
            expires_at=soon,
        ),
        RefreshToken(
            token_digest=b"refresh",
            family_id=uuid.uuid4(),
            client_pk=client.id,
            user_id=user.id,
            scope="openid offline_access",
            expires_at=soon,
        ),
    )
    return {
        "users": user.id,
        "clients": client.id,
        "roles": role.id,
        "groups": group.id,
        "apis": api.id,
        "scopes": scope.id,
        "profile_fields": field.id,
    }


def _dependents(table: Table, condition: ColumnElement[bool]) -> dict[str, list[Any]]:
    """Per table, conditions selecting the rows that reference (through any chain of
    foreign keys) the rows of ``table`` matching ``condition``."""
    found: dict[str, list[Any]] = {}
    for child in Base.metadata.sorted_tables:
        for fk in child.foreign_key_constraints:
            if fk.referred_table is not table:
                continue
            local = tuple_(*(element.parent for element in fk.elements))
            remote = [element.column for element in fk.elements]
            reference = local.in_(select(*remote).where(condition))
            found.setdefault(child.name, []).append(reference)
            for name, conditions in _dependents(child, reference).items():
                found.setdefault(name, []).extend(conditions)
    return found


async def _counts(
    session: AsyncSession, dependents: dict[str, list[Any]]
) -> tuple[dict[str, int], dict[str, int]]:
    """``(rows depending on the parent, all rows)`` per dependent table."""
    depending, total = {}, {}
    for name, conditions in dependents.items():
        table = Base.metadata.tables[name]
        depending[name] = (
            await session.scalar(select(func.count()).select_from(table).where(or_(*conditions)))
            or 0
        )
        total[name] = await session.scalar(select(func.count()).select_from(table)) or 0
    return depending, total


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
            },
        ),
        ("clients", {"client_secrets", "client_scopes", "consents", "refresh_tokens"}),
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
    ids = await _populate(sessions)
    table = Base.metadata.tables[parent]
    condition = table.c.id == ids[parent]
    dependents = _dependents(table, condition)
    assert must_vanish <= set(dependents)

    async with sessions() as session:
        depending_before, total_before = await _counts(session, dependents)
    assert all(depending_before.values()), depending_before  # the fixture covers every path

    async with sessions.begin() as session:
        await session.execute(delete(table).where(condition))

    async with sessions() as session:
        depending_after, total_after = await _counts(session, dependents)
        assert await session.scalar(select(func.count()).select_from(table).where(condition)) == 0
    assert depending_after == dict.fromkeys(dependents, 0)
    assert total_after == {name: total_before[name] - depending_before[name] for name in dependents}


async def test_deleting_a_user_keeps_other_users_data(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ids = await _populate(sessions)
    (other,) = await _users(sessions, 1)
    field = ids["profile_fields"]
    await _add(sessions, ProfileValue(field_id=field, user_id=other, value="E-2", is_unique=True))

    async with sessions.begin() as session:
        await session.execute(delete(User).where(User.id == ids["users"]))

    assert await _values(sessions, field) == ["E-2"]


# --- ORM defaults ---------------------------------------------------------------------


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
