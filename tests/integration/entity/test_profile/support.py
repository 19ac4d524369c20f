"""Helpers shared by the ``/entity/profile`` tests: profile fields, stored values, groups."""

from __future__ import annotations

import uuid
from typing import Any

from tests.harness.records import TestUser, query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import (
    EntityApi,
)

PROFILE = "/entity/profile"
SCHEMA = "/entity/profile/schema"


def new_key(prefix: str = "f") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def field(admin: AdminApi, **body: Any) -> str:
    """Create a profile field (writable by the person unless said otherwise); its key."""
    body.setdefault("key", new_key())
    body.setdefault("label", "A field")
    body.setdefault("userWritable", True)
    resp = admin.post("/admin/profile-fields", json=body)
    assert resp.status_code == 201, resp.text
    return str(body["key"])


def admin_sets(admin: AdminApi, person: TestUser, values: dict[str, Any]) -> None:
    resp = admin.patch(f"/admin/users/{person.id}/profile", json=values)
    assert resp.status_code == 200, resp.text


def stored(stack: Stack, person: TestUser) -> dict[str, str]:
    rows = query(
        stack,
        "SELECT f.key, v.value FROM profile_values v JOIN profile_fields f ON f.id = v.field_id "
        "WHERE v.user_id = $1",
        uuid.UUID(person.id),
    )
    return {str(r["key"]): str(r["value"]) for r in rows}


def user_row(stack: Stack, person: TestUser) -> dict[str, object]:
    return query(
        stack,
        "SELECT username, display_name, updated_at FROM users WHERE id = $1",
        uuid.UUID(person.id),
    )[0]


def new_group(stack: Stack, *members: TestUser) -> str:
    group = query(stack, "INSERT INTO groups (name) VALUES ($1) RETURNING id", new_key("g"))[0]
    for member in members:
        query(
            stack,
            "INSERT INTO group_members (group_id, user_id) VALUES ($1, $2)",
            group["id"],
            uuid.UUID(member.id),
        )
    return str(group["id"])


def schema_keys(entity_api: EntityApi) -> list[str]:
    resp = entity_api.get(SCHEMA)
    assert resp.status_code == 200, resp.text
    return [item["key"] for item in resp.json()["items"]]


def _refusable(stack: Stack, admin: AdminApi, someone_else: TestUser) -> dict[str, str]:
    """Keys the person may not write, each with why."""
    return {
        "read only": field(admin, userWritable=False),
        "unreadable": field(admin, userReadable=False, userWritable=False),
        "unreadable but writable": field(admin, userReadable=False, userWritable=True),
        "another group's": field(admin, groupId=new_group(stack, someone_else)),
        "unknown": new_key("none"),
        "built-in email": "email",
        "built-in picture": "picture",
    }
