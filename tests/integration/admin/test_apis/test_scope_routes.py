"""``/admin/apis/{api_id}/scopes``: create, list, read, update, delete; the standard
scopes are fixed."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.harness.records import create_client, query
from tests.integration.admin.contract import (
    MISSING_ID,
    AdminApi,
    assert_guarded,
    assert_problem,
)
from tests.integration.admin.test_apis.support import (
    MALFORMED_ID,
    READ,
    WRITE,
    new_api,
    new_scope,
    walk,
)

pytestmark = pytest.mark.integration


def test_create_scope(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    value = f"{api['name']}:orders.v2:read_all"
    resp = admin_api.post(
        f"/admin/apis/{api['id']}/scopes", json={"value": value, "description": "See your orders"}
    )
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert set(body) == {"id", "apiId", "value", "description", "createdAt"}
    assert (body["apiId"], body["value"], body["description"]) == (
        api["id"],
        value,
        "See your orders",
    )
    stored = query(
        admin_api.stack,
        "SELECT api_id, value, description FROM scopes WHERE id = $1",
        uuid.UUID(body["id"]),
    )
    assert stored == [
        {"api_id": uuid.UUID(api["id"]), "value": value, "description": "See your orders"}
    ]
    rows = admin_api.audit_rows(body["id"])
    assert [(r["action"], r["actor"], r["target_type"], r["status_code"]) for r in rows] == [
        ("scope.create", admin_api.actor, "scope", 201)
    ]


def test_create_scope_guarded_and_missing(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    body = {"value": f"{api['name']}:a:b", "description": "d"}
    assert_guarded(admin_api, "POST", f"/admin/apis/{api['id']}/scopes", WRITE, json=body)
    assert_problem(admin_api.post(f"/admin/apis/{MISSING_ID}/scopes", json=body), 404)
    assert_problem(admin_api.post(f"/admin/apis/{MALFORMED_ID}/scopes", json=body), 404)


@pytest.mark.parametrize(
    ("value", "description", "field"),
    [
        ("{api}:things:read", None, "description"),
        ("{api}:things:read", "", "description"),
        ("{api}:things:read", "   ", "description"),
        (None, "Read things", "value"),
        ("{api}:things", "Read things", "value"),
        ("{api}:things:read:more", "Read things", "value"),
        ("{api}::read", "Read things", "value"),
        ("{api}:Things:read", "Read things", "value"),
        ("{api}:things :read", "Read things", "value"),
        ("otherapi:things:read", "Read things", "value"),
    ],
)
def test_create_scope_invalid(
    admin_api: AdminApi, value: str | None, description: str | None, field: str
) -> None:
    api = new_api(admin_api)
    body: dict[str, Any] = {}
    if value is not None:
        body["value"] = value.format(api=api["name"])
    if description is not None:
        body["description"] = description
    resp = admin_api.post(f"/admin/apis/{api['id']}/scopes", json=body)
    assert_problem(resp, 422, field=field)
    stored = query(
        admin_api.stack, "SELECT 1 AS x FROM scopes WHERE api_id = $1", uuid.UUID(api["id"])
    )
    assert stored == []


def test_create_scope_duplicate(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    scope = new_scope(admin_api, api)
    resp = admin_api.post(
        f"/admin/apis/{api['id']}/scopes", json={"value": scope["value"], "description": "again"}
    )
    assert_problem(resp, 409)
    assert "value" in resp.json()["detail"]
    rows = query(admin_api.stack, "SELECT description FROM scopes WHERE value = $1", scope["value"])
    assert rows == [{"description": "Read things"}]


def test_list_scopes_paged(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    made = {new_scope(admin_api, api, action)["id"] for action in ("read", "write", "admin")}
    new_scope(admin_api, new_api(admin_api))  # another API's scope is not listed
    items = walk(admin_api, f"/admin/apis/{api['id']}/scopes")
    assert [i["id"] for i in items if i["id"] in made] == [i["id"] for i in items]
    assert {i["id"] for i in items} == made and len(items) == 3
    values = [i["value"] for i in items]
    assert values == sorted(values)
    assert all(i["apiId"] == api["id"] for i in items)


def test_list_scopes_guarded_missing_invalid(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    path = f"/admin/apis/{api['id']}/scopes"
    assert_guarded(admin_api, "GET", path, READ)
    assert_problem(admin_api.get(f"/admin/apis/{MISSING_ID}/scopes"), 404)
    assert_problem(admin_api.get(f"/admin/apis/{MALFORMED_ID}/scopes"), 404)
    assert_problem(admin_api.get(path, params={"cursor": "bm90LWEtY3Vyc29y"}), 422, field="cursor")
    assert_problem(admin_api.get(path, params={"limit": 0}), 422, field="limit")


def test_get_scope(admin_api: AdminApi) -> None:
    scope = new_scope(admin_api, new_api(admin_api))
    resp = admin_api.get(f"/admin/scopes/{scope['id']}", scopes=[READ])
    assert resp.status_code == 200, resp.text
    assert resp.json() == scope


def test_get_standard_scope(admin_api: AdminApi) -> None:
    scope_id = query(admin_api.stack, "SELECT id FROM scopes WHERE value = 'openid'")[0]["id"]
    resp = admin_api.get(f"/admin/scopes/{scope_id}")
    assert resp.status_code == 200, resp.text
    assert (resp.json()["value"], resp.json()["apiId"]) == ("openid", None)


def test_get_scope_guarded_and_missing(admin_api: AdminApi) -> None:
    scope = new_scope(admin_api, new_api(admin_api))
    assert_guarded(admin_api, "GET", f"/admin/scopes/{scope['id']}", READ)
    assert_problem(admin_api.get(f"/admin/scopes/{MISSING_ID}"), 404)
    assert_problem(admin_api.get(f"/admin/scopes/{MALFORMED_ID}"), 404)


def test_update_scope(admin_api: AdminApi) -> None:
    scope = new_scope(admin_api, new_api(admin_api))
    resp = admin_api.patch(f"/admin/scopes/{scope['id']}", json={"description": "Now clearer"})
    assert resp.status_code == 200, resp.text
    assert resp.json() == {**scope, "description": "Now clearer"}
    stored = query(
        admin_api.stack, "SELECT description FROM scopes WHERE id = $1", uuid.UUID(scope["id"])
    )
    assert stored == [{"description": "Now clearer"}]
    row = admin_api.audit_rows(scope["id"])[-1]
    assert (row["action"], row["actor"], row["status_code"]) == (
        "scope.update",
        admin_api.actor,
        200,
    )


def test_update_scope_guarded_missing_invalid(admin_api: AdminApi) -> None:
    scope = new_scope(admin_api, new_api(admin_api))
    path = f"/admin/scopes/{scope['id']}"
    assert_guarded(admin_api, "PATCH", path, WRITE, json={"description": "x"})
    assert_problem(admin_api.patch(f"/admin/scopes/{MISSING_ID}", json={"description": "x"}), 404)
    assert_problem(admin_api.patch(f"/admin/scopes/{MALFORMED_ID}", json={"description": "x"}), 404)
    assert_problem(admin_api.patch(path, json={"description": " "}), 422, field="description")
    assert_problem(admin_api.patch(path, json={}), 422, field="description")
    assert_problem(
        admin_api.patch(path, json={"description": "x", "value": "a:b:c"}), 422, field="value"
    )
    assert_problem(
        admin_api.patch(path, json={"description": "x", "apiId": MISSING_ID}), 422, field="apiId"
    )
    assert admin_api.get(path).json() == scope


def test_standard_scopes_are_fixed(admin_api: AdminApi) -> None:
    for value in ("openid", "profile", "email", "offline_access"):
        row = query(admin_api.stack, "SELECT id, description FROM scopes WHERE value = $1", value)[
            0
        ]
        path = f"/admin/scopes/{row['id']}"
        assert_problem(admin_api.patch(path, json={"description": "changed"}), 409)
        assert_problem(admin_api.delete(path), 409)
        after = query(admin_api.stack, "SELECT id, description FROM scopes WHERE value = $1", value)
        assert after == [row]


def test_delete_scope_cascades(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    scope, other = new_scope(admin_api, api, "read"), new_scope(admin_api, api, "write")
    client = create_client(admin_api.stack, scopes=(scope["value"], other["value"]))
    resp = admin_api.delete(f"/admin/scopes/{scope['id']}")
    assert resp.status_code == 204, resp.text
    stack = admin_api.stack
    assert query(stack, "SELECT 1 AS x FROM scopes WHERE id = $1", uuid.UUID(scope["id"])) == []
    kept = query(
        stack,
        "SELECT s.value FROM client_scopes cs JOIN clients c ON c.id = cs.client_pk "
        "JOIN scopes s ON s.id = cs.scope_id WHERE c.client_id = $1",
        client.client_id,
    )
    assert kept == [{"value": other["value"]}]
    row = admin_api.audit_rows(scope["id"])[-1]
    assert (row["action"], row["actor"], row["status_code"]) == (
        "scope.delete",
        admin_api.actor,
        204,
    )
    assert_problem(admin_api.get(f"/admin/scopes/{scope['id']}"), 404)


def test_delete_scope_guarded_and_missing(admin_api: AdminApi) -> None:
    scope = new_scope(admin_api, new_api(admin_api))
    assert_guarded(admin_api, "DELETE", f"/admin/scopes/{scope['id']}", WRITE)
    assert_problem(admin_api.delete(f"/admin/scopes/{MISSING_ID}"), 404)
    assert_problem(admin_api.delete(f"/admin/scopes/{MALFORMED_ID}"), 404)
    assert admin_api.get(f"/admin/scopes/{scope['id']}").status_code == 200
