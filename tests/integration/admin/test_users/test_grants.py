"""A user's roles, direct scopes and effective scopes (``/admin/users/{user_id}/roles``,
``/scopes``, ``/effective-scopes``)."""

from __future__ import annotations

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_CLIENTS_READ,
    SELF_SERVICE_SCOPES,
)
from tests.harness.records import (
    query,
)
from tests.harness.stack import Stack
from tests.integration.admin.contract import (
    MISSING_ID,
    AdminApi,
    assert_guarded,
    assert_problem,
)
from tests.integration.admin.test_users.support import (
    READ,
    WRITE,
    count,
    insert_group,
    insert_role,
    new_user,
    repo_effective_scopes,
)

pytestmark = pytest.mark.integration


def test_put_roles_replaces_them(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    first, first_name = insert_role(stack, [])
    second, second_name = insert_role(stack, [])
    path = f"/admin/users/{user['id']}/roles"
    response = admin_api.put(path, json={"roles": [first, second, first]}, scopes=[WRITE])
    assert response.status_code == 200, response.text
    assert response.json() == {
        "roles": sorted(
            [{"id": first, "name": first_name}, {"id": second, "name": second_name}],
            key=lambda r: r["name"],
        )
    }
    assert admin_api.put(path, json={"roles": [second]}).status_code == 200
    rows = query(
        stack, "SELECT role_id::text AS r FROM user_roles WHERE user_id = $1::uuid", user["id"]
    )
    assert rows == [{"r": second}]
    audit = admin_api.audit_rows(user["id"])
    assert audit[-1]["action"] == "user.set_roles"

    bad = admin_api.put(path, json={"roles": [second, MISSING_ID, "junk"]})
    assert_problem(bad, 422, field="roles[1]")
    assert_problem(bad, 422, field="roles[2]")
    assert_problem(admin_api.put(path, json={"roles": "x"}), 422, field="roles")
    assert_problem(admin_api.put(path, json={}), 422, field="roles")
    assert count(stack, "user_roles", user["id"]) == 1  # unchanged by the refusals
    assert_guarded(admin_api, "PUT", path, WRITE, json={"roles": []})
    assert_problem(admin_api.put(f"/admin/users/{MISSING_ID}/roles", json={"roles": []}), 404)
    assert admin_api.put(path, json={"roles": []}).json() == {"roles": []}
    assert count(stack, "user_roles", user["id"]) == 0


def test_put_scopes_replaces_direct_grants(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    path = f"/admin/users/{user['id']}/scopes"
    response = admin_api.put(path, json={"scopes": [WRITE, READ]}, scopes=[WRITE])
    assert response.status_code == 200, response.text
    assert response.json() == {"scopes": sorted([READ, WRITE])}
    assert admin_api.put(path, json={"scopes": [READ]}).json() == {"scopes": [READ]}
    rows = query(
        stack,
        "SELECT s.value FROM user_scopes u JOIN scopes s ON s.id = u.scope_id "
        "WHERE u.user_id = $1::uuid",
        user["id"],
    )
    assert rows == [{"value": READ}]
    assert_problem(
        admin_api.put(path, json={"scopes": [READ, "idp:nope:x"]}), 422, field="scopes[1]"
    )
    assert_problem(admin_api.put(path, json={"scopes": [READ], "x": 1}), 422, field="x")
    assert count(stack, "user_scopes", user["id"]) == 1
    assert_guarded(admin_api, "PUT", path, WRITE, json={"scopes": []})
    assert_problem(admin_api.put(f"/admin/users/{MISSING_ID}/scopes", json={"scopes": []}), 404)
    actions = [(r["action"], r["status_code"]) for r in admin_api.audit_rows(user["id"])]
    assert actions.count(("user.set_scopes", 200)) == 2
    assert ("PUT /admin/users/{user_id}/scopes", 422) in actions  # refusals are audited too


def test_get_roles_and_scopes_read_the_direct_grants(admin_api: AdminApi, stack: Stack) -> None:
    """What the PUTs replace can be read back, a role without scopes included (the
    console's user screen starts from it)."""
    user = new_user(admin_api)
    empty_role, empty_name = insert_role(stack, [])
    roles_path, scopes_path = (f"/admin/users/{user['id']}/{part}" for part in ("roles", "scopes"))
    assert admin_api.get(roles_path, scopes=[READ]).json() == {"roles": []}
    assert admin_api.get(scopes_path, scopes=[READ]).json() == {"scopes": []}
    admin_api.put(roles_path, json={"roles": [empty_role]})
    admin_api.put(scopes_path, json={"scopes": [WRITE, READ]})
    assert admin_api.get(roles_path).json() == {"roles": [{"id": empty_role, "name": empty_name}]}
    assert admin_api.get(scopes_path).json() == {"scopes": sorted([READ, WRITE])}
    assert_guarded(admin_api, "GET", roles_path, READ)
    assert_guarded(admin_api, "GET", scopes_path, READ)
    assert_problem(admin_api.get(f"/admin/users/{MISSING_ID}/roles"), 404)
    assert_problem(admin_api.get("/admin/users/12/scopes"), 404)


def test_effective_scopes_explain_every_source(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    role_id, role_name = insert_role(stack, [SCOPE_IDP_CLIENTS_READ, READ])
    group_id, group_name = insert_group(stack, user["id"], role_id)
    admin_api.put(f"/admin/users/{user['id']}/scopes", json={"scopes": [READ]})
    own_role, own_role_name = insert_role(stack, [READ])
    admin_api.put(f"/admin/users/{user['id']}/roles", json={"roles": [own_role]})

    path = f"/admin/users/{user['id']}/effective-scopes"
    response = admin_api.get(path, scopes=[READ])
    assert response.status_code == 200, response.text
    items = {item["scope"]: item["sources"] for item in response.json()["items"]}
    via_group = {
        "kind": "group",
        "groupId": group_id,
        "groupName": group_name,
        "roleId": role_id,
        "roleName": role_name,
    }
    assert items[SCOPE_IDP_CLIENTS_READ] == [via_group]
    assert items[READ] == [
        {"kind": "direct"},
        {"kind": "role", "roleId": own_role, "roleName": own_role_name},
        via_group,
    ]
    for value in SELF_SERVICE_SCOPES:
        assert items[value] == [{"kind": "default"}]
    assert set(items) == {SCOPE_IDP_CLIENTS_READ, READ, *SELF_SERVICE_SCOPES}
    assert [i["scope"] for i in response.json()["items"]] == sorted(items)
    # Token issuance sees the same set.
    assert repo_effective_scopes(stack, user["id"]) == set(items)

    assert_guarded(admin_api, "GET", path, READ)
    assert_problem(admin_api.get(f"/admin/users/{MISSING_ID}/effective-scopes"), 404)
    assert_problem(admin_api.get("/admin/users/x/effective-scopes"), 404)


def test_effective_scopes_of_a_user_without_grants(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    items = admin_api.get(f"/admin/users/{user['id']}/effective-scopes").json()["items"]
    assert [i["scope"] for i in items] == sorted(SELF_SERVICE_SCOPES)
    assert repo_effective_scopes(stack, user["id"]) == set(SELF_SERVICE_SCOPES)
