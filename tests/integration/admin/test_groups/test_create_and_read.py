"""``POST /admin/groups``, ``GET /admin/groups`` and ``GET /admin/groups/{group_id}``."""

from __future__ import annotations

import uuid

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_GROUPS_READ,
    SCOPE_IDP_GROUPS_WRITE,
)
from tests.harness.records import create_user, query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_groups.support import (
    new_group,
    new_role,
    unique,
)

pytestmark = pytest.mark.integration


def test_create_group(admin_api: AdminApi) -> None:
    name = unique()
    response = admin_api.post("/admin/groups", json={"name": f" {name} ", "description": "d"})
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {
        "id",
        "name",
        "description",
        "roles",
        "memberCount",
        "createdAt",
        "updatedAt",
    }
    assert (body["name"], body["description"], body["roles"], body["memberCount"]) == (
        name,
        "d",
        [],
        0,
    )
    stored = query(
        admin_api.stack,
        "SELECT name, description FROM groups WHERE id = $1",
        uuid.UUID(body["id"]),
    )
    assert stored == [{"name": name, "description": "d"}]
    [row] = admin_api.audit_rows(body["id"])
    assert (row["action"], row["target_type"], row["actor"], row["status_code"]) == (
        "group.create",
        "group",
        admin_api.actor,
        201,
    )


def test_create_group_description_defaults_to_empty(admin_api: AdminApi) -> None:
    assert new_group(admin_api)["description"] == ""


def test_create_group_guarded(admin_api: AdminApi) -> None:
    assert_guarded(
        admin_api, "POST", "/admin/groups", SCOPE_IDP_GROUPS_WRITE, json={"name": unique()}
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "\t "}, "name"),
        ({"name": "x" * 201}, "name"),
        ({"name": ["a"]}, "name"),
        ({"name": "ok", "description": None}, "description"),
        ({"name": "ok", "members": []}, "members"),
    ],
)
def test_create_group_invalid(admin_api: AdminApi, body: dict[str, object], field: str) -> None:
    before = query(admin_api.stack, "SELECT count(*) AS n FROM groups")
    assert_problem(admin_api.post("/admin/groups", json=body), 422, field=field)
    assert query(admin_api.stack, "SELECT count(*) AS n FROM groups") == before


def test_create_group_duplicate_name(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    response = admin_api.post("/admin/groups", json={"name": group["name"]})
    assert_problem(response, 409, field="name")
    assert "name" in response.json()["detail"]
    count = query(
        admin_api.stack, "SELECT count(*) AS n FROM groups WHERE name = $1", group["name"]
    )
    assert count == [{"n": 1}]


def test_list_groups_paged_by_name(admin_api: AdminApi) -> None:
    mine = {str(new_group(admin_api)["name"]) for _ in range(3)}
    names: list[str] = []
    cursor = None
    for _ in range(500):
        params: dict[str, object] = {"limit": 1}
        if cursor:
            params["cursor"] = cursor
        response = admin_api.get("/admin/groups", params=params)
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


def test_list_groups_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/groups", SCOPE_IDP_GROUPS_READ)


@pytest.mark.parametrize(
    ("params", "field"),
    [({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"cursor": "!!"}, "cursor")],
)
def test_list_groups_invalid(admin_api: AdminApi, params: dict[str, object], field: str) -> None:
    assert_problem(admin_api.get("/admin/groups", params=params), 422, field=field)


def test_get_group_with_roles_and_count(admin_api: AdminApi) -> None:
    group = new_group(admin_api, description="reads")
    role = new_role(admin_api)
    user = create_user(admin_api.stack)
    admin_api.put(f"/admin/groups/{group['id']}/roles", json={"roles": [role["id"]]})
    admin_api.post(f"/admin/groups/{group['id']}/members", json={"members": [user.id]})
    response = admin_api.get(f"/admin/groups/{group['id']}")
    assert response.status_code == 200
    body = response.json()
    assert body["roles"] == [{"id": role["id"], "name": role["name"]}]
    assert body["memberCount"] == 1
    assert (body["name"], body["description"]) == (group["name"], "reads")


def test_get_group_guarded(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    assert_guarded(admin_api, "GET", f"/admin/groups/{group['id']}", SCOPE_IDP_GROUPS_READ)


@pytest.mark.parametrize("group_id", [MISSING_ID, "not-a-uuid"])
def test_get_group_missing(admin_api: AdminApi, group_id: str) -> None:
    assert_problem(admin_api.get(f"/admin/groups/{group_id}"), 404)
