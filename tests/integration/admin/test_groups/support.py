"""Helpers shared by the ``/admin/groups`` tests: new groups and roles, member ids."""

from __future__ import annotations

import json
import uuid

from tests.harness.records import query
from tests.integration.admin.contract import AdminApi


def unique(prefix: str = "group") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def new_group(api: AdminApi, **body: object) -> dict[str, object]:
    response = api.post("/admin/groups", json={"name": unique(), **body})
    assert response.status_code == 201, response.text
    group: dict[str, object] = response.json()
    return group


def new_role(api: AdminApi) -> dict[str, object]:
    response = api.post("/admin/roles", json={"name": unique("role")})
    assert response.status_code == 201, response.text
    role: dict[str, object] = response.json()
    return role


def member_ids(api: AdminApi, group_id: object) -> set[str]:
    rows = query(
        api.stack,
        "SELECT user_id FROM group_members WHERE group_id = $1",
        uuid.UUID(str(group_id)),
    )
    return {str(r["user_id"]) for r in rows}


def detail(row: dict[str, object]) -> object:
    return json.loads(str(row["detail"]))
