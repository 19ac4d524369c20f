"""The migration takes an empty database to the models' schema and back again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from idp_common.storage.db.engine import create_engine, database_url
from idp_common.storage.db.migrate import (
    current_revision,
    downgrade,
    head_revision,
    older_revisions,
    upgrade,
)
from idp_common.storage.db.models import Base, Scope

pytestmark = pytest.mark.integration

EXPECTED_TABLES = {
    "users",
    "brands",
    "password_credentials",
    "totp_credentials",
    "totp_recovery_codes",
    "face_templates",
    "passkeys",
    "apis",
    "scopes",
    "clients",
    "client_secrets",
    "client_scopes",
    "roles",
    "role_scopes",
    "groups",
    "group_members",
    "group_roles",
    "user_roles",
    "user_scopes",
    "profile_fields",
    "profile_values",
    "consents",
    "authorization_codes",
    "refresh_tokens",
    "password_reset_tokens",
    "photo_fingerprints",
    "audit_events",
    "activity_hours",
    "event_outbox",
    "webhook_endpoints",
    "webhook_deliveries",
}
OIDC_SCOPES = {"openid", "profile", "email", "offline_access"}


async def _tables(engine: AsyncEngine) -> set[str]:
    async with engine.connect() as connection:
        return set(await connection.run_sync(lambda c: inspect(c).get_table_names()))


async def _standard_scopes(engine: AsyncEngine) -> dict[str, str]:
    async with engine.connect() as connection:
        rows = await connection.execute(
            select(Scope.value, Scope.description).where(Scope.api_id.is_(None))
        )
        return {value: description for value, description in rows}


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "compare_server_default": True}
    )
    return list(compare_metadata(context, Base.metadata))


# Everything Postgres knows about the public schema, as Postgres itself prints it, so that
# two databases can be compared exactly (autogenerate ignores CHECK constraints and the
# WHERE clause of partial indexes).
CATALOG_QUERIES = {
    "columns": """
        SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default,
               is_identity, identity_generation
        FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name <> 'alembic_version'
    """,
    "constraints": """
        SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid)
        FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace
          AND conrelid::regclass::text <> 'alembic_version'
    """,
    "indexes": """
        SELECT tablename, indexname, indexdef FROM pg_indexes
        WHERE schemaname = 'public' AND tablename <> 'alembic_version'
    """,
    "storage": """
        SELECT relname, array_to_string(reloptions, ',') FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'
          AND reloptions IS NOT NULL
    """,
}


async def _catalog(engine: AsyncEngine) -> dict[str, set[tuple[Any, ...]]]:
    async with engine.connect() as connection:
        return {
            kind: {tuple(row) for row in await connection.execute(text(query))}
            for kind, query in CATALOG_QUERIES.items()
        }


def test_models_declare_every_table() -> None:
    assert set(Base.metadata.tables) == EXPECTED_TABLES


def test_revisions_form_one_line_ending_at_head() -> None:
    assert head_revision() == "0018"
    assert older_revisions("0018") == {
        "0001",
        "0002",
        "0003",
        "0004",
        "0005",
        "0006",
        "0007",
        "0008",
        "0009",
        "0010",
        "0011",
        "0012",
        "0013",
        "0014",
        "0015",
        "0016",
        "0017",
    }


async def test_upgrade_downgrade_upgrade(fresh_database_url: str) -> None:
    engine = create_engine(fresh_database_url)
    try:
        assert await _tables(engine) == set()
        assert await current_revision(engine) is None

        await upgrade(fresh_database_url)
        assert await _tables(engine) == EXPECTED_TABLES | {"alembic_version"}
        assert await current_revision(engine) == head_revision()
        scopes = await _standard_scopes(engine)
        assert set(scopes) == OIDC_SCOPES
        assert all(description.strip() for description in scopes.values())

        await downgrade(fresh_database_url)
        assert await _tables(engine) - {"alembic_version"} == set()
        assert await current_revision(engine) is None
        async with engine.connect() as connection:
            leftovers = await connection.scalar(
                text(
                    "SELECT count(*) FROM pg_class c"
                    " JOIN pg_namespace n ON n.oid = c.relnamespace"
                    " WHERE n.nspname = 'public' AND c.relname <> 'alembic_version'"
                    " AND c.relname NOT LIKE 'alembic_version%'"
                )
            )
        assert leftovers == 0  # no index, sequence or table of ours survives

        await upgrade(fresh_database_url)
        assert await _tables(engine) == EXPECTED_TABLES | {"alembic_version"}
        assert await current_revision(engine) == head_revision()
        assert set(await _standard_scopes(engine)) == OIDC_SCOPES
    finally:
        await engine.dispose()


async def test_upgrade_twice_is_a_no_op(migrated_engine: AsyncEngine) -> None:
    url = migrated_engine.url.render_as_string(hide_password=False)
    await upgrade(url)
    assert await current_revision(migrated_engine) == head_revision()
    assert set(await _standard_scopes(migrated_engine)) == OIDC_SCOPES


async def test_plain_postgresql_url_is_accepted(fresh_database_url: str) -> None:
    plain = fresh_database_url.replace("postgresql+asyncpg://", "postgresql://", 1)
    await upgrade(plain)
    engine = create_engine(plain)
    try:
        assert await current_revision(engine) == head_revision()
    finally:
        await engine.dispose()


async def test_models_match_migrated_database(migrated_engine: AsyncEngine) -> None:
    async with migrated_engine.connect() as connection:
        differences = await connection.run_sync(_differences)
    assert differences == []


async def test_migrated_catalog_equals_create_all(
    migrated_engine: AsyncEngine, make_database: Callable[[], Awaitable[str]]
) -> None:
    """Column, constraint and index definitions equal those ``create_all`` makes."""
    reference = create_engine(await make_database())
    try:
        async with reference.begin() as connection:
            await connection.run_sync(Base.metadata.create_all)
        expected = await _catalog(reference)
    finally:
        await reference.dispose()
    migrated = await _catalog(migrated_engine)
    for kind in CATALOG_QUERIES:
        assert migrated[kind] - expected[kind] == set(), f"{kind} only in the migration"
        assert expected[kind] - migrated[kind] == set(), f"{kind} only in the models"
    assert migrated["constraints"]
    assert migrated["indexes"]
    assert ("refresh_tokens", "fillfactor=80") in migrated["storage"]


def test_database_url_converts_plain_postgresql() -> None:
    for scheme in ("postgresql", "postgres", "postgresql+asyncpg"):
        url = database_url(f"{scheme}://u:p%40ss@db:5432/idp")
        assert url.drivername == "postgresql+asyncpg"
        assert url.password == "p@ss"
        assert url.database == "idp"
    with pytest.raises(ValueError, match="unsupported"):
        database_url("mysql://db/idp")
