"""``PATCH`` and ``DELETE /admin/roles/{role_id}``; the administrator role stays."""

from __future__ import annotations

import json
import uuid

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_AUDIT_READ,
    SCOPE_IDP_ROLES_WRITE,
)
from tests.harness.records import create_user, query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_roles.support import (
    admin_role_id,
    new_role,
    role_scopes,
    unique,
)

pytestmark = pytest.mark.integration


def test_update_role(admin_api: AdminApi) -> None:
    role = new_role(admin_api, description="old")
    name = unique()
    response = admin_api.patch(f"/admin/roles/{role['id']}", json={"name": name})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["name"], body["description"]) == (name, "old")
    response = admin_api.patch(f"/admin/roles/{role['id']}", json={"description": "new"})
    assert (response.json()["name"], response.json()["description"]) == (name, "new")
    stored = query(
        admin_api.stack,
        "SELECT name, description FROM roles WHERE id = $1",
        uuid.UUID(str(role["id"])),
    )
    assert stored == [{"name": name, "description": "new"}]
    rows = admin_api.audit_rows(str(role["id"]))
    assert [(r["action"], json.loads(str(r["detail"]))) for r in rows[1:]] == [
        ("role.update", {"fields": ["name"]}),
        ("role.update", {"fields": ["description"]}),
    ]


def test_update_role_guarded(admin_api: AdminApi) -> None:
    role = new_role(admin_api)
    assert_guarded(
        admin_api,
        "PATCH",
        f"/admin/roles/{role['id']}",
        SCOPE_IDP_ROLES_WRITE,
        json={"description": "x"},
    )


@pytest.mark.parametrize("role_id", [MISSING_ID, "not-a-uuid"])
def test_update_role_missing(admin_api: AdminApi, role_id: str) -> None:
    assert_problem(admin_api.patch(f"/admin/roles/{role_id}", json={"description": "x"}), 404)


@pytest.mark.parametrize(
    ("body", "field"),
    [({"name": " "}, "name"), ({"name": "y" * 201}, "name"), ({"key": "v"}, "key")],
)
def test_update_role_invalid(admin_api: AdminApi, body: dict[str, object], field: str) -> None:
    role = new_role(admin_api)
    assert_problem(admin_api.patch(f"/admin/roles/{role['id']}", json=body), 422, field=field)
    assert admin_api.get(f"/admin/roles/{role['id']}").json()["name"] == role["name"]


def test_update_role_to_taken_name(admin_api: AdminApi) -> None:
    first, second = new_role(admin_api), new_role(admin_api)
    response = admin_api.patch(f"/admin/roles/{second['id']}", json={"name": first["name"]})
    assert_problem(response, 409)
    assert admin_api.get(f"/admin/roles/{second['id']}").json()["name"] == second["name"]


def test_administrator_role_cannot_be_renamed(admin_api: AdminApi) -> None:
    role_id = admin_role_id(admin_api)
    assert_problem(admin_api.patch(f"/admin/roles/{role_id}", json={"name": unique()}), 409)
    same = admin_api.patch(f"/admin/roles/{role_id}", json={"name": "administrator"})
    assert same.status_code == 200, same.text
    assert admin_api.get(f"/admin/roles/{role_id}").json()["name"] == "administrator"


def test_delete_role_removes_its_links(admin_api: AdminApi) -> None:
    role = new_role(admin_api)
    role_id = uuid.UUID(str(role["id"]))
    assert (
        admin_api.put(
            f"/admin/roles/{role_id}/scopes", json={"scopes": [SCOPE_IDP_AUDIT_READ]}
        ).status_code
        == 200
    )
    user = create_user(admin_api.stack)
    query(
        admin_api.stack,
        "INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2)",
        uuid.UUID(user.id),
        role_id,
    )
    group = admin_api.post("/admin/groups", json={"name": unique("group")}).json()
    group_id = uuid.UUID(group["id"])
    query(
        admin_api.stack,
        "INSERT INTO group_roles (group_id, role_id) VALUES ($1, $2)",
        group_id,
        role_id,
    )

    response = admin_api.delete(f"/admin/roles/{role_id}")
    assert response.status_code == 204, response.text
    assert response.content == b""
    for sql in (
        "SELECT 1 FROM roles WHERE id = $1",
        "SELECT 1 FROM role_scopes WHERE role_id = $1",
        "SELECT 1 FROM user_roles WHERE role_id = $1",
        "SELECT 1 FROM group_roles WHERE role_id = $1",
    ):
        assert query(admin_api.stack, sql, role_id) == [], sql
    assert query(admin_api.stack, "SELECT 1 FROM users WHERE id = $1", uuid.UUID(user.id))
    assert admin_api.get(f"/admin/groups/{group_id}").json()["roles"] == []
    assert admin_api.audit_rows(str(role_id))[-1]["action"] == "role.delete"
    assert_problem(admin_api.get(f"/admin/roles/{role_id}"), 404)


def test_delete_role_guarded(admin_api: AdminApi) -> None:
    role = new_role(admin_api)
    assert_guarded(admin_api, "DELETE", f"/admin/roles/{role['id']}", SCOPE_IDP_ROLES_WRITE)
    assert admin_api.get(f"/admin/roles/{role['id']}").status_code == 200


@pytest.mark.parametrize("role_id", [MISSING_ID, "not-a-uuid"])
def test_delete_role_missing(admin_api: AdminApi, role_id: str) -> None:
    assert_problem(admin_api.delete(f"/admin/roles/{role_id}"), 404)


def test_administrator_role_cannot_be_deleted(admin_api: AdminApi) -> None:
    role_id = admin_role_id(admin_api)
    assert_problem(admin_api.delete(f"/admin/roles/{role_id}"), 409)
    assert query(admin_api.stack, "SELECT 1 FROM roles WHERE id = $1", uuid.UUID(role_id))
    assert SCOPE_IDP_ROLES_WRITE in role_scopes(admin_api, role_id)
