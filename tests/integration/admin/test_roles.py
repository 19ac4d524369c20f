"""``/admin/roles`` (spec part 4 "Admin: roles"; issue 4 acceptance 1).

Each route: success, 401/403, 404 for a missing or malformed id, 422 naming the field.
Also: unique names (409), the protected seeded ``administrator`` role, scope
replacement, link rows removed with the role, audit rows of every write.
"""

from __future__ import annotations

import json
import uuid

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_AUDIT_READ,
    SCOPE_IDP_ROLES_READ,
    SCOPE_IDP_ROLES_WRITE,
    SCOPE_IDP_USERS_READ,
)
from tests.harness.records import create_user, query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem

pytestmark = pytest.mark.integration


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


# --- POST /admin/roles ---------------------------------------------------------------


def test_create_role(admin_api: AdminApi) -> None:
    name = unique()
    response = admin_api.post("/admin/roles", json={"name": f"  {name} ", "description": "d"})
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {"id", "name", "description", "scopes", "createdAt", "updatedAt"}
    assert (body["name"], body["description"], body["scopes"]) == (name, "d", [])
    stored = query(
        admin_api.stack, "SELECT name, description FROM roles WHERE id = $1", uuid.UUID(body["id"])
    )
    assert stored == [{"name": name, "description": "d"}]
    [row] = admin_api.audit_rows(body["id"])
    assert row["action"] == "role.create"
    assert row["target_type"] == "role"
    assert row["actor"] == admin_api.actor
    assert row["status_code"] == 201
    assert row["ip"]


def test_create_role_description_defaults_to_empty(admin_api: AdminApi) -> None:
    assert new_role(admin_api)["description"] == ""


def test_create_role_guarded(admin_api: AdminApi) -> None:
    assert_guarded(
        admin_api, "POST", "/admin/roles", SCOPE_IDP_ROLES_WRITE, json={"name": unique()}
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 201}, "name"),
        ({"name": 5}, "name"),
        ({"name": "ok", "description": 3}, "description"),
        ({"name": "ok", "colour": "red"}, "colour"),
    ],
)
def test_create_role_invalid(admin_api: AdminApi, body: dict[str, object], field: str) -> None:
    before = query(admin_api.stack, "SELECT count(*) AS n FROM roles")
    assert_problem(admin_api.post("/admin/roles", json=body), 422, field=field)
    assert query(admin_api.stack, "SELECT count(*) AS n FROM roles") == before


def test_create_role_duplicate_name(admin_api: AdminApi) -> None:
    role = new_role(admin_api)
    response = admin_api.post("/admin/roles", json={"name": role["name"]})
    assert_problem(response, 409, field="name")
    assert "name" in response.json()["detail"]
    assert query(
        admin_api.stack, "SELECT count(*) AS n FROM roles WHERE name = $1", role["name"]
    ) == [{"n": 1}]


# --- GET /admin/roles ----------------------------------------------------------------


def test_list_roles_paged_by_name(admin_api: AdminApi) -> None:
    mine = {str(new_role(admin_api)["name"]) for _ in range(3)}
    names: list[str] = []
    cursor = None
    for _ in range(500):
        params: dict[str, object] = {"limit": 1}
        if cursor:
            params["cursor"] = cursor
        response = admin_api.get("/admin/roles", params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        assert len(page["items"]) <= 1
        names += [item["name"] for item in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert names == sorted(names)
    assert len(names) == len(set(names))
    assert mine <= set(names)
    assert "administrator" in names


def test_list_roles_shows_scopes(admin_api: AdminApi) -> None:
    response = admin_api.get("/admin/roles", params={"limit": 200})
    admin = next(r for r in response.json()["items"] if r["name"] == "administrator")
    assert SCOPE_IDP_ROLES_WRITE in admin["scopes"]


def test_list_roles_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/roles", SCOPE_IDP_ROLES_READ)


@pytest.mark.parametrize(
    ("params", "field"),
    [({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"cursor": "garbage"}, "cursor")],
)
def test_list_roles_invalid(admin_api: AdminApi, params: dict[str, object], field: str) -> None:
    assert_problem(admin_api.get("/admin/roles", params=params), 422, field=field)


# --- GET /admin/roles/{role_id} ------------------------------------------------------


def test_get_role(admin_api: AdminApi) -> None:
    role = new_role(admin_api, description="reads")
    response = admin_api.get(f"/admin/roles/{role['id']}")
    assert response.status_code == 200
    assert response.json() == role


def test_get_role_guarded(admin_api: AdminApi) -> None:
    role = new_role(admin_api)
    assert_guarded(admin_api, "GET", f"/admin/roles/{role['id']}", SCOPE_IDP_ROLES_READ)


@pytest.mark.parametrize("role_id", [MISSING_ID, "not-a-uuid"])
def test_get_role_missing(admin_api: AdminApi, role_id: str) -> None:
    assert_problem(admin_api.get(f"/admin/roles/{role_id}"), 404)


# --- PATCH /admin/roles/{role_id} ----------------------------------------------------


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


# --- DELETE /admin/roles/{role_id} ---------------------------------------------------


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


# --- PUT /admin/roles/{role_id}/scopes -----------------------------------------------


def test_set_role_scopes_replaces(admin_api: AdminApi) -> None:
    role = new_role(admin_api)
    path = f"/admin/roles/{role['id']}/scopes"
    first = admin_api.put(path, json={"scopes": [SCOPE_IDP_USERS_READ, SCOPE_IDP_AUDIT_READ]})
    assert first.status_code == 200, first.text
    assert first.json()["scopes"] == sorted([SCOPE_IDP_USERS_READ, SCOPE_IDP_AUDIT_READ])
    second = admin_api.put(path, json={"scopes": [SCOPE_IDP_ROLES_READ, SCOPE_IDP_ROLES_READ]})
    assert second.json()["scopes"] == [SCOPE_IDP_ROLES_READ]
    assert role_scopes(admin_api, str(role["id"])) == [SCOPE_IDP_ROLES_READ]
    assert admin_api.get(f"/admin/roles/{role['id']}").json()["scopes"] == [SCOPE_IDP_ROLES_READ]
    cleared = admin_api.put(path, json={"scopes": []})
    assert cleared.json()["scopes"] == []
    assert role_scopes(admin_api, str(role["id"])) == []
    actions = [r["action"] for r in admin_api.audit_rows(str(role["id"]))]
    assert actions == ["role.create", "role.set_scopes", "role.set_scopes", "role.set_scopes"]


def test_set_role_scopes_guarded(admin_api: AdminApi) -> None:
    role = new_role(admin_api)
    assert_guarded(
        admin_api,
        "PUT",
        f"/admin/roles/{role['id']}/scopes",
        SCOPE_IDP_ROLES_WRITE,
        json={"scopes": []},
    )


@pytest.mark.parametrize("role_id", [MISSING_ID, "not-a-uuid"])
def test_set_role_scopes_missing(admin_api: AdminApi, role_id: str) -> None:
    assert_problem(admin_api.put(f"/admin/roles/{role_id}/scopes", json={"scopes": []}), 404)


@pytest.mark.parametrize(
    ("scopes", "field"),
    [
        ([SCOPE_IDP_USERS_READ, "idp:nothing:here"], "scopes[1]"),
        (["openid"], "scopes[0]"),
        ("idp:users:read", "scopes"),
        ([1], "scopes[0]"),
    ],
)
def test_set_role_scopes_invalid(admin_api: AdminApi, scopes: object, field: str) -> None:
    role = new_role(admin_api)
    path = f"/admin/roles/{role['id']}/scopes"
    admin_api.put(path, json={"scopes": [SCOPE_IDP_AUDIT_READ]})
    response = admin_api.put(path, json={"scopes": scopes})
    assert_problem(response, 422, field=field)
    assert role_scopes(admin_api, str(role["id"])) == [SCOPE_IDP_AUDIT_READ]


def test_set_role_scopes_missing_body_member(admin_api: AdminApi) -> None:
    role = new_role(admin_api)
    assert_problem(admin_api.put(f"/admin/roles/{role['id']}/scopes", json={}), 422, field="scopes")


def test_administrator_scopes_can_be_replaced(admin_api: AdminApi) -> None:
    role_id = admin_role_id(admin_api)
    before = role_scopes(admin_api, role_id)
    response = admin_api.put(f"/admin/roles/{role_id}/scopes", json={"scopes": before[:1]})
    assert response.status_code == 200, response.text
    restored = admin_api.put(f"/admin/roles/{role_id}/scopes", json={"scopes": before})
    assert restored.json()["scopes"] == before
