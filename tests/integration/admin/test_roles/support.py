"""Helpers shared by the ``/admin/roles`` tests: new roles, the administrator role, role scopes."""

from __future__ import annotations

import uuid

from tests.harness.records import query
from tests.integration.admin.contract import AdminApi


def unique(prefix: str = "role") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def new_role(api: AdminApi, **body: object) -> dict[str, object]:
    response = api.post("/admin/roles", json={"name": unique(), **body})
    assert response.status_code == 201, response.text
    role: dict[str, object] = response.json()
    return role


def admin_role_id(api: AdminApi) -> str:
    rows = query(api.stack, "SELECT id FROM roles WHERE name = 'administrator'")
    return str(rows[0]["id"])


def role_scopes(api: AdminApi, role_id: str) -> list[str]:
    rows = query(
        api.stack,
        "SELECT s.value FROM role_scopes rs JOIN scopes s ON s.id = rs.scope_id "
        "WHERE rs.role_id = $1 ORDER BY s.value",
        uuid.UUID(role_id),
    )
    return [str(r["value"]) for r in rows]
