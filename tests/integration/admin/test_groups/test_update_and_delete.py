"""``PATCH`` and ``DELETE /admin/groups/{group_id}``."""

from __future__ import annotations

import uuid

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_GROUPS_WRITE,
)
from tests.harness.records import create_user, query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_groups.support import (
    detail,
    new_group,
    new_role,
    unique,
)

pytestmark = pytest.mark.integration


def test_update_group(admin_api: AdminApi) -> None:
    group = new_group(admin_api, description="old")
    name = unique()
    response = admin_api.patch(
        f"/admin/groups/{group['id']}", json={"name": name, "description": "new"}
    )
    assert response.status_code == 200, response.text
    assert (response.json()["name"], response.json()["description"]) == (name, "new")
    stored = query(
        admin_api.stack,
        "SELECT name, description FROM groups WHERE id = $1",
        uuid.UUID(str(group["id"])),
    )
    assert stored == [{"name": name, "description": "new"}]
    row = admin_api.audit_rows(str(group["id"]))[-1]
    assert (row["action"], detail(row)) == ("group.update", {"fields": ["name", "description"]})


def test_update_group_guarded(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    assert_guarded(
        admin_api,
        "PATCH",
        f"/admin/groups/{group['id']}",
        SCOPE_IDP_GROUPS_WRITE,
        json={"description": "x"},
    )


@pytest.mark.parametrize("group_id", [MISSING_ID, "not-a-uuid"])
def test_update_group_missing(admin_api: AdminApi, group_id: str) -> None:
    assert_problem(admin_api.patch(f"/admin/groups/{group_id}", json={"description": "x"}), 404)


@pytest.mark.parametrize(
    ("body", "field"),
    [({"name": ""}, "name"), ({"description": 1}, "description"), ({"roles": []}, "roles")],
)
def test_update_group_invalid(admin_api: AdminApi, body: dict[str, object], field: str) -> None:
    group = new_group(admin_api)
    assert_problem(admin_api.patch(f"/admin/groups/{group['id']}", json=body), 422, field=field)


def test_update_group_to_taken_name(admin_api: AdminApi) -> None:
    first, second = new_group(admin_api), new_group(admin_api)
    response = admin_api.patch(f"/admin/groups/{second['id']}", json={"name": first["name"]})
    assert_problem(response, 409)
    assert admin_api.get(f"/admin/groups/{second['id']}").json()["name"] == second["name"]


def test_delete_group_takes_links_and_bound_fields(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    group_id = uuid.UUID(str(group["id"]))
    role = new_role(admin_api)
    user = create_user(admin_api.stack)
    admin_api.put(f"/admin/groups/{group_id}/roles", json={"roles": [role["id"]]})
    admin_api.post(f"/admin/groups/{group_id}/members", json={"members": [user.id]})
    [field] = query(
        admin_api.stack,
        "INSERT INTO profile_fields (key, label, group_id) VALUES ($1, 'Bound', $2) RETURNING id",
        unique("key"),
        group_id,
    )
    query(
        admin_api.stack,
        "INSERT INTO profile_values (field_id, user_id, value, is_unique) "
        "VALUES ($1, $2, 'v', false)",
        field["id"],
        uuid.UUID(user.id),
    )

    response = admin_api.delete(f"/admin/groups/{group_id}")
    assert response.status_code == 204, response.text
    assert response.content == b""
    for sql in (
        "SELECT 1 FROM groups WHERE id = $1",
        "SELECT 1 FROM group_members WHERE group_id = $1",
        "SELECT 1 FROM group_roles WHERE group_id = $1",
        "SELECT 1 FROM profile_fields WHERE group_id = $1",
    ):
        assert query(admin_api.stack, sql, group_id) == [], sql
    assert (
        query(admin_api.stack, "SELECT 1 FROM profile_values WHERE field_id = $1", field["id"])
        == []
    )
    # The users and roles themselves stay.
    assert query(admin_api.stack, "SELECT 1 FROM users WHERE id = $1", uuid.UUID(user.id))
    assert admin_api.get(f"/admin/roles/{role['id']}").status_code == 200
    row = admin_api.audit_rows(str(group_id))[-1]
    assert (row["action"], row["status_code"]) == ("group.delete", 204)
    assert_problem(admin_api.get(f"/admin/groups/{group_id}"), 404)


def test_delete_group_guarded(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    assert_guarded(admin_api, "DELETE", f"/admin/groups/{group['id']}", SCOPE_IDP_GROUPS_WRITE)
    assert admin_api.get(f"/admin/groups/{group['id']}").status_code == 200


@pytest.mark.parametrize("group_id", [MISSING_ID, "not-a-uuid"])
def test_delete_group_missing(admin_api: AdminApi, group_id: str) -> None:
    assert_problem(admin_api.delete(f"/admin/groups/{group_id}"), 404)
