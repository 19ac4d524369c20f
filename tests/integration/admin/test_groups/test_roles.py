"""A group's roles, and the scopes its members hold through them."""

from __future__ import annotations

import uuid

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_AUDIT_READ,
    SCOPE_IDP_GROUPS_WRITE,
)
from tests.harness.records import create_user, query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_groups.support import (
    new_group,
    new_role,
)

pytestmark = pytest.mark.integration


def test_set_group_roles_replaces(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    first, second = new_role(admin_api), new_role(admin_api)
    path = f"/admin/groups/{group['id']}/roles"
    response = admin_api.put(path, json={"roles": [first["id"], second["id"], first["id"]]})
    assert response.status_code == 200, response.text
    assert {r["id"] for r in response.json()["roles"]} == {first["id"], second["id"]}
    replaced = admin_api.put(path, json={"roles": [second["id"]]})
    assert replaced.json()["roles"] == [{"id": second["id"], "name": second["name"]}]
    stored = query(
        admin_api.stack,
        "SELECT role_id FROM group_roles WHERE group_id = $1",
        uuid.UUID(str(group["id"])),
    )
    assert [str(r["role_id"]) for r in stored] == [second["id"]]
    assert admin_api.put(path, json={"roles": []}).json()["roles"] == []
    actions = [r["action"] for r in admin_api.audit_rows(str(group["id"]))]
    assert actions == ["group.create", "group.set_roles", "group.set_roles", "group.set_roles"]


def test_members_hold_the_group_roles_scopes(admin_api: AdminApi) -> None:
    """docs/design.md: effective scopes include the scopes of the roles of the user's groups."""
    group, role = new_group(admin_api), new_role(admin_api)
    user = create_user(admin_api.stack)
    admin_api.put(f"/admin/roles/{role['id']}/scopes", json={"scopes": [SCOPE_IDP_AUDIT_READ]})
    admin_api.put(f"/admin/groups/{group['id']}/roles", json={"roles": [role["id"]]})
    admin_api.post(f"/admin/groups/{group['id']}/members", json={"members": [user.id]})
    held = query(
        admin_api.stack,
        "SELECT s.value FROM group_members gm JOIN group_roles gr ON gr.group_id = gm.group_id "
        "JOIN role_scopes rs ON rs.role_id = gr.role_id JOIN scopes s ON s.id = rs.scope_id "
        "WHERE gm.user_id = $1",
        uuid.UUID(user.id),
    )
    assert held == [{"value": SCOPE_IDP_AUDIT_READ}]


def test_set_group_roles_guarded(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    assert_guarded(
        admin_api,
        "PUT",
        f"/admin/groups/{group['id']}/roles",
        SCOPE_IDP_GROUPS_WRITE,
        json={"roles": []},
    )


@pytest.mark.parametrize("group_id", [MISSING_ID, "not-a-uuid"])
def test_set_group_roles_missing(admin_api: AdminApi, group_id: str) -> None:
    assert_problem(admin_api.put(f"/admin/groups/{group_id}/roles", json={"roles": []}), 404)


@pytest.mark.parametrize(
    ("roles", "field"),
    [
        (["ROLE", MISSING_ID], "roles[1]"),
        (["bad", "ROLE"], "roles[0]"),
        (None, "roles"),
        ([{}], "roles[0]"),
    ],
)
def test_set_group_roles_invalid(admin_api: AdminApi, roles: object, field: str) -> None:
    group = new_group(admin_api)
    role = new_role(admin_api)
    path = f"/admin/groups/{group['id']}/roles"
    admin_api.put(path, json={"roles": [role["id"]]})
    if isinstance(roles, list):
        roles = [role["id"] if r == "ROLE" else r for r in roles]
    response = admin_api.put(path, json={"roles": roles})
    assert_problem(response, 422, field=field)
    assert [r["id"] for r in admin_api.get(f"/admin/groups/{group['id']}").json()["roles"]] == [
        role["id"]
    ]
