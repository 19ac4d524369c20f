"""Helpers shared by the ``/admin/users`` tests: a new user, its rows and audit details."""

from __future__ import annotations

import json
import uuid
from typing import Any

from idp_common.protocol.constants import (
    SCOPE_IDP_USERS_READ,
    SCOPE_IDP_USERS_WRITE,
)
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.repos.users import effective_scopes
from tests.harness import infra
from tests.harness.records import (
    query,
)
from tests.harness.stack import Stack
from tests.integration.admin.contract import (
    AdminApi,
)

READ, WRITE = SCOPE_IDP_USERS_READ, SCOPE_IDP_USERS_WRITE
GOOD_PASSWORD = "violet anchor drifting seven"
USER_KEYS = {
    "id",
    "email",
    "username",
    "displayName",
    "emailVerified",
    "disabled",
    "createdAt",
    "updatedAt",
}


def tag() -> str:
    return uuid.uuid4().hex[:10]


def new_user(api: AdminApi, **extra: Any) -> dict[str, Any]:
    t = tag()
    body = {
        "email": f"User-{t}@Example.com",
        "username": f"user-{t}",
        "displayName": "A Person",
        "password": GOOD_PASSWORD,
        **extra,
    }
    response = api.post("/admin/users", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def insert_role(stack: Stack, scopes: list[str]) -> tuple[str, str]:
    name = f"role-{tag()}"
    role_id = str(query(stack, "INSERT INTO roles (name) VALUES ($1) RETURNING id", name)[0]["id"])
    query(
        stack,
        "INSERT INTO role_scopes (role_id, scope_id) "
        "SELECT $1::uuid, id FROM scopes WHERE value = ANY($2::text[])",
        role_id,
        scopes,
    )
    return role_id, name


def insert_group(stack: Stack, user_id: str, role_id: str) -> tuple[str, str]:
    name = f"group-{tag()}"
    group_id = str(
        query(stack, "INSERT INTO groups (name) VALUES ($1) RETURNING id", name)[0]["id"]
    )
    query(stack, "INSERT INTO group_members VALUES ($1::uuid, $2::uuid)", group_id, user_id)
    query(stack, "INSERT INTO group_roles VALUES ($1::uuid, $2::uuid)", group_id, role_id)
    return group_id, name


def count(stack: Stack, table: str, user_id: str) -> int:
    rows = query(stack, f"SELECT count(*) AS n FROM {table} WHERE user_id = $1::uuid", user_id)  # noqa: S608
    return int(str(rows[0]["n"]))


def outbox_rows(stack: Stack, user_id: str) -> list[dict[str, Any]]:
    rows = query(
        stack,
        "SELECT subject, payload::text AS payload FROM event_outbox "
        "WHERE payload->>'user_id' = $1 ORDER BY id",
        user_id,
    )
    return [{"subject": r["subject"], **json.loads(str(r["payload"]))} for r in rows]


def detail(row: dict[str, object]) -> dict[str, Any]:
    """An audit row's ``detail`` (asyncpg hands jsonb over as text)."""
    value = row["detail"]
    parsed: dict[str, Any] = json.loads(value) if isinstance(value, str) else value  # type: ignore[assignment]
    return parsed


def password_hash(stack: Stack, user_id: str) -> str | None:
    rows = query(stack, "SELECT hash FROM password_credentials WHERE user_id = $1::uuid", user_id)
    return str(rows[0]["hash"]) if rows else None


def repo_effective_scopes(stack: Stack, user_id: str) -> set[str]:
    async def run() -> set[str]:
        engine = create_engine(stack.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return await effective_scopes(session, uuid.UUID(user_id))
        finally:
            await engine.dispose()

    return infra.run(run())
