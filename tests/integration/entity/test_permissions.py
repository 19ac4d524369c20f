"""``GET /entity/permissions`` (contract §4 "Entity (self-service)"; issue 5 acceptance 1):
every scope the caller holds and where it comes from, the same answer as the admin API's
``effective-scopes`` for that person. The route takes no input, so it has no 422."""

from __future__ import annotations

import uuid

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_ACCOUNT_READ,
    SCOPE_IDP_CLIENTS_READ,
    SCOPE_IDP_USERS_READ,
    SELF_SERVICE_SCOPES,
)
from tests.harness.api import ApiClient
from tests.harness.records import TestUser, query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import (
    ALL_SELF_SERVICE_SCOPES,
    EntityApi,
    assert_guarded,
    assert_problem,
)

pytestmark = pytest.mark.integration
PATH = "/entity/permissions"


def tag() -> str:
    return uuid.uuid4().hex[:10]


def insert_role(stack: Stack, scopes: list[str]) -> tuple[str, str]:
    name = f"role-{tag()}"
    role_id = str(query(stack, "INSERT INTO roles (name) VALUES ($1) RETURNING id", name)[0]["id"])
    query(
        stack,
        "INSERT INTO role_scopes (role_id, scope_id) "
        "SELECT $1::uuid, id FROM scopes WHERE value = ANY($2::text[])",
        role_id,
        scopes,
    )
    return role_id, name


def test_every_scope_with_its_sources(
    stack: Stack, person: TestUser, entity_api: EntityApi
) -> None:
    own_role, own_role_name = insert_role(stack, [SCOPE_IDP_USERS_READ])
    group_role, group_role_name = insert_role(stack, [SCOPE_IDP_CLIENTS_READ, SCOPE_IDP_USERS_READ])
    group_name = f"group-{tag()}"
    group = str(
        query(stack, "INSERT INTO groups (name) VALUES ($1) RETURNING id", group_name)[0]["id"]
    )
    query(stack, "INSERT INTO group_members VALUES ($1::uuid, $2::uuid)", group, person.id)
    query(stack, "INSERT INTO group_roles VALUES ($1::uuid, $2::uuid)", group, group_role)
    query(stack, "INSERT INTO user_roles VALUES ($1::uuid, $2::uuid)", person.id, own_role)
    query(
        stack,
        "INSERT INTO user_scopes (user_id, scope_id) SELECT $1::uuid, id FROM scopes "
        "WHERE value = $2",
        person.id,
        SCOPE_IDP_USERS_READ,
    )

    response = entity_api.get(PATH, scopes=[SCOPE_IDP_ACCOUNT_READ])
    assert response.status_code == 200, response.text
    items = {item["scope"]: item["sources"] for item in response.json()["items"]}
    via_group = {
        "kind": "group",
        "groupId": group,
        "groupName": group_name,
        "roleId": group_role,
        "roleName": group_role_name,
    }
    assert items[SCOPE_IDP_CLIENTS_READ] == [via_group]
    assert items[SCOPE_IDP_USERS_READ] == [
        {"kind": "direct"},
        {"kind": "role", "roleId": own_role, "roleName": own_role_name},
        via_group,
    ]
    for value in SELF_SERVICE_SCOPES:
        assert items[value] == [{"kind": "default"}]
    assert set(items) == {SCOPE_IDP_CLIENTS_READ, SCOPE_IDP_USERS_READ, *SELF_SERVICE_SCOPES}
    assert [i["scope"] for i in response.json()["items"]] == sorted(items)

    admin = AdminApi(stack)
    try:
        explained = admin.get(f"/admin/users/{person.id}/effective-scopes")
    finally:
        admin.close()
    assert explained.json() == response.json()  # one explanation on both sides


def test_a_person_without_grants_holds_the_self_service_scopes(entity_api: EntityApi) -> None:
    items = entity_api.get(PATH).json()["items"]
    assert items == [
        {"scope": s, "sources": [{"kind": "default"}]} for s in sorted(SELF_SERVICE_SCOPES)
    ]


def test_guarded_and_only_for_a_person(stack: Stack, entity_api: EntityApi) -> None:
    assert_guarded(entity_api, "GET", PATH, SCOPE_IDP_ACCOUNT_READ)
    machine = ApiClient(stack, "entity", "machine-client", ALL_SELF_SERVICE_SCOPES)
    try:
        assert_problem(machine.get(PATH), 404)
    finally:
        machine.close()
