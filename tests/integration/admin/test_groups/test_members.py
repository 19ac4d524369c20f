"""A group's members: list, add (idempotent), remove."""

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
    detail,
    member_ids,
    new_group,
)

pytestmark = pytest.mark.integration


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
