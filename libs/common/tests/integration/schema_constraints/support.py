"""Helpers shared by the schema constraint tests: violations, users, profile fields and values,
rows populated under every parent."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Table, func, or_, select, tuple_
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from idp_common.storage.db.models import (
    Api,
    AuthorizationCode,
    Base,
    Brand,
    Client,
    ClientScope,
    ClientSecret,
    Consent,
    FaceTemplate,
    Group,
    GroupMember,
    GroupRole,
    Passkey,
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

UNIQUE_VIOLATION = "23505"
FOREIGN_KEY_VIOLATION = "23503"
CHECK_VIOLATION = "23514"


def violation(error: IntegrityError) -> tuple[str, str]:
    """``(sqlstate, constraint name)`` of the asyncpg error behind ``error``."""
    cause: Any = error.orig.__cause__ if error.orig is not None else None
    return cause.sqlstate, cause.constraint_name


async def add(sessions: async_sessionmaker[AsyncSession], *rows: Base) -> None:
    async with sessions.begin() as session:
        for row in rows:
            session.add(row)
            await session.flush()


async def _users(sessions: async_sessionmaker[AsyncSession], count: int) -> list[uuid.UUID]:
    users = [User(email=f"user{n}@example.com") for n in range(count)]
    await add(sessions, *users)
    return [user.id for user in users]


async def _field(
    sessions: async_sessionmaker[AsyncSession], *, unique: bool, **kw: Any
) -> uuid.UUID:
    field = ProfileField(key=f"field_{uuid.uuid4().hex[:8]}", label="Field", is_unique=unique, **kw)
    await add(sessions, field)
    return field.id


async def values(sessions: async_sessionmaker[AsyncSession], field_id: uuid.UUID) -> list[str]:
    async with sessions() as session:
        query = select(ProfileValue.value).where(ProfileValue.field_id == field_id)
        return list(await session.scalars(query))


LOCK_WAIT_LIMIT = 10.0
"""Seconds to wait for the second writer to block before giving up."""


async def wait_until_blocked_on_a_lock(engine: AsyncEngine) -> None:
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


async def populate(sessions: async_sessionmaker[AsyncSession]) -> dict[str, uuid.UUID]:
    """One row in every table, all linked together; returns the ids of the parents."""
    soon = datetime.now(UTC) + timedelta(minutes=5)
    api = Api(name="Payroll", audience="https://payroll.example")
    user = User(email="ada@example.com", username="ada")
    client = Client(client_id="app", name="App", type="confidential", grant_types=["refresh_token"])
    role = Role(name="payroll-reader")
    group = Group(name="finance")
    await add(sessions, api, user, client, role, group)
    scope = Scope(api_id=api.id, value="payroll:slips:read", description="Read payslips")
    field = ProfileField(key="employee_no", label="Employee number", is_unique=True)
    field.group_id = group.id
    await add(sessions, scope, field)
    await add(
        sessions,
        PasswordCredential(user_id=user.id, hash="$argon2id$v=19$m=65536,t=3,p=4$x$y"),
        TotpCredential(user_id=user.id, secret_encrypted=b"secret"),
        TotpRecoveryCode(user_id=user.id, code_digest=b"code"),
        FaceTemplate(user_id=user.id, template_encrypted=b"face"),
        PhotoFingerprint(user_id=user.id, pixel_digest=b"pixels", embedding_encrypted=None),
        Passkey(
            user_id=user.id,
            credential_id=b"credential",
            public_key=b"cose key",
            aaguid="00000000-0000-0000-0000-000000000000",
            backup_eligible=False,
            backed_up=False,
            user_verified=True,
            name="Laptop",
        ),
        PasswordResetToken(token_digest=b"reset", user_id=user.id, expires_at=soon),
        ClientSecret(client_pk=client.id, digest=b"digest"),
        # The provider's brand (no client) must outlive any client; the client's must not.
        Brand(client_pk=None, product_name="Provider"),
        Brand(client_pk=client.id, product_name="App"),
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


async def counts(
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
