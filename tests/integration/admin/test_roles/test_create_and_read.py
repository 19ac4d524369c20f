"""``POST /admin/roles``, ``GET /admin/roles`` and ``GET /admin/roles/{role_id}``."""

from __future__ import annotations

import uuid

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_ROLES_READ,
    SCOPE_IDP_ROLES_WRITE,
)
from tests.harness.records import query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_roles.support import (
    new_role,
    unique,
)

pytestmark = pytest.mark.integration


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
