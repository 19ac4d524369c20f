"""``PUT /admin/roles/{role_id}/scopes``: a role's scopes replaced as a set."""

from __future__ import annotations

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_AUDIT_READ,
    SCOPE_IDP_ROLES_READ,
    SCOPE_IDP_ROLES_WRITE,
    SCOPE_IDP_USERS_READ,
)
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_roles.support import (
    admin_role_id,
    new_role,
    role_scopes,
)

pytestmark = pytest.mark.integration


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
