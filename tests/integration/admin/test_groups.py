"""``/admin/groups`` (spec part 4 "Admin: groups"; issue 4 acceptance 1).

Each route: success, 401/403, 404 for a missing or malformed id, 422 naming the field.
Also: unique names (409), idempotent member adds, role replacement, what a delete takes
with it (memberships, role links, profile fields bound to the group and their values),
the audit row of every write, and what members hold through the group's roles.
"""

from __future__ import annotations

import json
import uuid

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_AUDIT_READ,
    SCOPE_IDP_GROUPS_READ,
    SCOPE_IDP_GROUPS_WRITE,
)
from tests.harness.records import create_user, query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem

pytestmark = pytest.mark.integration


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


# --- POST /admin/groups --------------------------------------------------------------


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


# --- GET /admin/groups ---------------------------------------------------------------


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


# --- GET /admin/groups/{group_id} ----------------------------------------------------


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


# --- PATCH /admin/groups/{group_id} --------------------------------------------------


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


# --- DELETE /admin/groups/{group_id} -------------------------------------------------


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


# --- GET /admin/groups/{group_id}/members --------------------------------------------


def test_list_members_paged(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    users = [create_user(admin_api.stack) for _ in range(3)]
    outsider = create_user(admin_api.stack)
    admin_api.post(f"/admin/groups/{group['id']}/members", json={"members": [u.id for u in users]})
    seen: list[dict[str, object]] = []
    cursor = None
    for _ in range(10):
        params: dict[str, object] = {"limit": 1}
        if cursor:
            params["cursor"] = cursor
        response = admin_api.get(f"/admin/groups/{group['id']}/members", params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        assert len(page["items"]) == 1
        seen += page["items"]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert [m["email"] for m in seen] == sorted(u.email for u in users)
    assert {m["id"] for m in seen} == {u.id for u in users}
    assert outsider.id not in {m["id"] for m in seen}
    assert set(seen[0]) == {"id", "email", "username", "displayName"}
    assert seen[0]["displayName"] == "Test Person"


def test_list_members_guarded(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    assert_guarded(admin_api, "GET", f"/admin/groups/{group['id']}/members", SCOPE_IDP_GROUPS_READ)


@pytest.mark.parametrize("group_id", [MISSING_ID, "not-a-uuid"])
def test_list_members_missing(admin_api: AdminApi, group_id: str) -> None:
    assert_problem(admin_api.get(f"/admin/groups/{group_id}/members"), 404)


def test_list_members_invalid(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    path = f"/admin/groups/{group['id']}/members"
    assert_problem(admin_api.get(path, params={"limit": 0}), 422, field="limit")
    assert_problem(admin_api.get(path, params={"cursor": "nope"}), 422, field="cursor")


# --- POST /admin/groups/{group_id}/members -------------------------------------------


def test_add_members_is_idempotent(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    first, second = create_user(admin_api.stack), create_user(admin_api.stack)
    path = f"/admin/groups/{group['id']}/members"
    response = admin_api.post(path, json={"members": [first.id]})
    assert response.status_code == 200, response.text
    assert response.json()["memberCount"] == 1
    again = admin_api.post(path, json={"members": [first.id, second.id, second.id]})
    assert again.status_code == 200, again.text
    assert again.json()["memberCount"] == 2
    assert member_ids(admin_api, group["id"]) == {first.id, second.id}
    rows = admin_api.audit_rows(str(group["id"]))
    assert [(r["action"], detail(r)) for r in rows[1:]] == [
        ("group.add_members", {"added": [first.id]}),
        ("group.add_members", {"added": [second.id]}),
    ]


def test_add_members_guarded(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    user = create_user(admin_api.stack)
    assert_guarded(
        admin_api,
        "POST",
        f"/admin/groups/{group['id']}/members",
        SCOPE_IDP_GROUPS_WRITE,
        json={"members": [user.id]},
    )
    assert member_ids(admin_api, group["id"]) == set()


@pytest.mark.parametrize("group_id", [MISSING_ID, "not-a-uuid"])
def test_add_members_missing_group(admin_api: AdminApi, group_id: str) -> None:
    user = create_user(admin_api.stack)
    response = admin_api.post(f"/admin/groups/{group_id}/members", json={"members": [user.id]})
    assert_problem(response, 404)


@pytest.mark.parametrize(
    ("members", "field"),
    [
        (["USER", MISSING_ID], "members[1]"),
        (["USER", "not-a-uuid"], "members[1]"),
        ([], "members"),
        ("USER", "members"),
        ([7], "members[0]"),
    ],
)
def test_add_members_invalid(admin_api: AdminApi, members: object, field: str) -> None:
    group = new_group(admin_api)
    user = create_user(admin_api.stack)
    if isinstance(members, list):
        members = [user.id if m == "USER" else m for m in members]
    elif members == "USER":
        members = user.id
    response = admin_api.post(f"/admin/groups/{group['id']}/members", json={"members": members})
    assert_problem(response, 422, field=field)
    assert member_ids(admin_api, group["id"]) == set()  # nothing half-added


# --- DELETE /admin/groups/{group_id}/members/{user_id} -------------------------------


def test_remove_member(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    stays, leaves = create_user(admin_api.stack), create_user(admin_api.stack)
    admin_api.post(f"/admin/groups/{group['id']}/members", json={"members": [stays.id, leaves.id]})
    response = admin_api.delete(f"/admin/groups/{group['id']}/members/{leaves.id}")
    assert response.status_code == 204, response.text
    assert member_ids(admin_api, group["id"]) == {stays.id}
    assert query(admin_api.stack, "SELECT 1 FROM users WHERE id = $1", uuid.UUID(leaves.id))
    row = admin_api.audit_rows(str(group["id"]))[-1]
    assert (row["action"], row["status_code"], detail(row)) == (
        "group.remove_member",
        204,
        {"user": leaves.id},
    )
    again = admin_api.delete(f"/admin/groups/{group['id']}/members/{leaves.id}")
    assert_problem(again, 404)


def test_remove_member_guarded(admin_api: AdminApi) -> None:
    group = new_group(admin_api)
    user = create_user(admin_api.stack)
    admin_api.post(f"/admin/groups/{group['id']}/members", json={"members": [user.id]})
    assert_guarded(
        admin_api,
        "DELETE",
        f"/admin/groups/{group['id']}/members/{user.id}",
        SCOPE_IDP_GROUPS_WRITE,
    )
    assert member_ids(admin_api, group["id"]) == {user.id}


@pytest.mark.parametrize(
    ("group_id", "user_id"),
    [
        (MISSING_ID, "USER"),
        ("not-a-uuid", "USER"),
        ("GROUP", MISSING_ID),
        ("GROUP", "not-a-uuid"),
        ("GROUP", "OUTSIDER"),
    ],
)
def test_remove_member_missing(admin_api: AdminApi, group_id: str, user_id: str) -> None:
    group = new_group(admin_api)
    user, outsider = create_user(admin_api.stack), create_user(admin_api.stack)
    admin_api.post(f"/admin/groups/{group['id']}/members", json={"members": [user.id]})
    names = {"GROUP": str(group["id"]), "USER": user.id, "OUTSIDER": outsider.id}
    path = f"/admin/groups/{names.get(group_id, group_id)}/members/{names.get(user_id, user_id)}"
    assert_problem(admin_api.delete(path), 404)
    assert member_ids(admin_api, group["id"]) == {user.id}


# --- PUT /admin/groups/{group_id}/roles ----------------------------------------------


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
    """DESIGN.md: effective scopes include the scopes of the roles of the user's groups."""
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
