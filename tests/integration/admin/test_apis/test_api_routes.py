"""``/admin/apis`` and ``/admin/apis/{api_id}``: create, list, read, update, delete; the
provider's own API is protected; refused writes are audited."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from idp_common.protocol.constants import (
    IDP_API_NAME,
    SCOPE_IDP_AUDIT_READ,
    idp_api_audience,
)
from tests.harness.records import create_client, create_user, query
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
    provider_api,
    unique_name,
    walk,
)

pytestmark = pytest.mark.integration


def test_create_api(admin_api: AdminApi) -> None:
    name = unique_name()
    resp = admin_api.post("/admin/apis", json={"name": name, "audience": "urn:test:" + name})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert set(body) == {
        "id",
        "name",
        "audience",
        "accessTokenSigningAlg",
        "createdAt",
        "updatedAt",
    }
    assert body["accessTokenSigningAlg"] == "RS256"  # issue #24: the default
    assert (body["name"], body["audience"]) == (name, "urn:test:" + name)
    stored = query(
        admin_api.stack, "SELECT name, audience FROM apis WHERE id = $1", uuid.UUID(body["id"])
    )
    assert stored == [{"name": name, "audience": "urn:test:" + name}]
    rows = admin_api.audit_rows(body["id"])
    assert len(rows) == 1
    row = rows[0]
    assert (row["action"], row["actor"], row["target_type"]) == (
        "api.create",
        admin_api.actor,
        "api",
    )
    assert row["status_code"] == 201
    assert row["ip"]


def test_create_api_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "POST", "/admin/apis", WRITE, json={"name": "x", "audience": "y"})


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"audience": "https://a.test"}, "name"),
        ({"name": "", "audience": "https://a.test"}, "name"),
        ({"name": "Upper", "audience": "https://a.test"}, "name"),
        ({"name": "has:colon", "audience": "https://a.test"}, "name"),
        ({"name": 7, "audience": "https://a.test"}, "name"),
        ({"name": "ok"}, "audience"),
        ({"name": "ok", "audience": ""}, "audience"),
        ({"name": "ok", "audience": "has space"}, "audience"),
        ({"name": "ok", "audience": "a" * 256}, "audience"),
        ({"name": "ok", "audience": "https://a.test", "owner": "me"}, "owner"),
    ],
)
def test_create_api_invalid(admin_api: AdminApi, body: dict[str, Any], field: str) -> None:
    before = query(admin_api.stack, "SELECT count(*) AS n FROM apis")
    assert_problem(admin_api.post("/admin/apis", json=body), 422, field=field)
    assert query(admin_api.stack, "SELECT count(*) AS n FROM apis") == before


def test_create_api_duplicates(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    same_name = admin_api.post(
        "/admin/apis", json={"name": api["name"], "audience": "https://other.test/" + unique_name()}
    )
    assert_problem(same_name, 409, field="name")
    assert "name" in same_name.json()["detail"]
    same_audience = admin_api.post(
        "/admin/apis", json={"name": unique_name(), "audience": api["audience"]}
    )
    assert_problem(same_audience, 409, field="audience")
    assert "audience" in same_audience.json()["detail"]
    count = query(admin_api.stack, "SELECT count(*) AS n FROM apis WHERE name = $1", api["name"])
    assert count == [{"n": 1}]


def test_list_apis_ordered_and_paged(admin_api: AdminApi) -> None:
    created = {new_api(admin_api)["id"] for _ in range(3)}
    items = walk(admin_api, "/admin/apis")
    ids = [i["id"] for i in items]
    assert len(ids) == len(set(ids))  # each exactly once
    assert created <= set(ids)
    names = [i["name"] for i in items]
    assert names == sorted(names)
    assert IDP_API_NAME in names
    total = query(admin_api.stack, "SELECT count(*) AS n FROM apis")[0]["n"]
    assert len(ids) == total


def test_list_apis_default_page(admin_api: AdminApi) -> None:
    resp = admin_api.get("/admin/apis")
    assert resp.status_code == 200, resp.text
    assert set(resp.json()) == {"items", "nextCursor"}


def test_list_apis_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/apis", READ)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"cursor": "bm90LWEtY3Vyc29y"}, "cursor"),
        ({"cursor": "!!!"}, "cursor"),
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
    ],
)
def test_list_apis_bad_paging(admin_api: AdminApi, params: dict[str, Any], field: str) -> None:
    assert_problem(admin_api.get("/admin/apis", params=params), 422, field=field)


def test_list_apis_foreign_cursor(admin_api: AdminApi) -> None:
    """A cursor made by another list (the audit log's) is not this list's."""
    new_api(admin_api)
    new_api(admin_api)
    audit = admin_api.get("/admin/audit", params={"limit": 1}, scopes=[SCOPE_IDP_AUDIT_READ])
    cursor = audit.json()["nextCursor"]
    assert cursor
    assert_problem(admin_api.get("/admin/apis", params={"cursor": cursor}), 422, field="cursor")


def test_get_api(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    resp = admin_api.get(f"/admin/apis/{api['id']}", scopes=[READ])
    assert resp.status_code == 200, resp.text
    assert resp.json() == api


def test_get_api_guarded_and_missing(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    assert_guarded(admin_api, "GET", f"/admin/apis/{api['id']}", READ)
    assert_problem(admin_api.get(f"/admin/apis/{MISSING_ID}"), 404)
    assert_problem(admin_api.get(f"/admin/apis/{MALFORMED_ID}"), 404)


def test_update_api(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    name = unique_name()
    resp = admin_api.patch(
        f"/admin/apis/{api['id']}", json={"name": name, "audience": "urn:renamed:" + name}
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["name"], body["audience"]) == (name, "urn:renamed:" + name)
    assert body["updatedAt"] >= api["updatedAt"]
    stored = query(
        admin_api.stack, "SELECT name, audience FROM apis WHERE id = $1", uuid.UUID(api["id"])
    )
    assert stored == [{"name": name, "audience": "urn:renamed:" + name}]
    only_audience = admin_api.patch(f"/admin/apis/{api['id']}", json={"audience": "urn:x:" + name})
    assert only_audience.status_code == 200, only_audience.text
    assert only_audience.json()["name"] == name
    actions = [r["action"] for r in admin_api.audit_rows(api["id"])]
    assert actions == ["api.create", "api.update", "api.update"]


def test_update_api_guarded_missing_invalid(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    path = f"/admin/apis/{api['id']}"
    assert_guarded(admin_api, "PATCH", path, WRITE, json={"audience": "urn:x"})
    assert_problem(admin_api.patch(f"/admin/apis/{MISSING_ID}", json={"audience": "urn:x"}), 404)
    assert_problem(admin_api.patch(f"/admin/apis/{MALFORMED_ID}", json={"audience": "urn:x"}), 404)
    assert_problem(admin_api.patch(path, json={"name": "Bad Name"}), 422, field="name")
    assert_problem(admin_api.patch(path, json={"name": None}), 422, field="name")
    assert_problem(admin_api.patch(path, json={"audience": " "}), 422, field="audience")
    assert_problem(admin_api.patch(path, json={"id": MISSING_ID}), 422, field="id")
    assert admin_api.get(path).json() == api


def test_update_api_conflicts(admin_api: AdminApi) -> None:
    one, two = new_api(admin_api), new_api(admin_api)
    path = f"/admin/apis/{one['id']}"
    taken_name = admin_api.patch(path, json={"name": two["name"]})
    assert_problem(taken_name, 409)
    assert "name" in taken_name.json()["detail"]
    taken_audience = admin_api.patch(path, json={"audience": two["audience"]})
    assert_problem(taken_audience, 409)
    assert "audience" in taken_audience.json()["detail"]
    # Scope values begin with the API's name: an API with scopes keeps it.
    new_scope(admin_api, one)
    assert_problem(admin_api.patch(path, json={"name": unique_name()}), 409)
    assert admin_api.get(path).json()["name"] == one["name"]


def test_provider_api_is_protected(admin_api: AdminApi) -> None:
    idp = provider_api(admin_api)
    assert idp["audience"] == idp_api_audience(admin_api.stack.issuer)
    path = f"/admin/apis/{idp['id']}"
    assert_problem(admin_api.patch(path, json={"name": unique_name()}), 409)
    assert_problem(admin_api.patch(path, json={"audience": "urn:elsewhere"}), 409)
    assert_problem(admin_api.delete(path), 409)
    assert admin_api.get(path).json() == idp
    # Its catalogue permissions are not deleted either.
    scope_id = query(admin_api.stack, "SELECT id FROM scopes WHERE value = $1", WRITE)[0]["id"]
    assert_problem(admin_api.delete(f"/admin/scopes/{scope_id}"), 409)
    assert query(admin_api.stack, "SELECT 1 AS x FROM scopes WHERE id = $1", scope_id)


def test_delete_api_cascades(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    read, write = new_scope(admin_api, api, "read"), new_scope(admin_api, api, "write")
    scope_ids = [uuid.UUID(read["id"]), uuid.UUID(write["id"])]
    role_id = query(
        admin_api.stack, "INSERT INTO roles (name) VALUES ($1) RETURNING id", unique_name()
    )[0]["id"]
    for scope_id in scope_ids:
        query(
            admin_api.stack,
            "INSERT INTO role_scopes (role_id, scope_id) VALUES ($1, $2) RETURNING role_id",
            role_id,
            scope_id,
        )
    client = create_client(admin_api.stack, scopes=("openid", read["value"]))
    user = create_user(admin_api.stack, scopes=(write["value"],))

    resp = admin_api.delete(f"/admin/apis/{api['id']}")
    assert resp.status_code == 204, resp.text
    assert resp.content == b""

    stack = admin_api.stack
    assert query(stack, "SELECT id FROM apis WHERE id = $1", uuid.UUID(api["id"])) == []
    assert query(stack, "SELECT id FROM scopes WHERE id = ANY($1::uuid[])", scope_ids) == []
    assert (
        query(stack, "SELECT 1 AS x FROM role_scopes WHERE scope_id = ANY($1::uuid[])", scope_ids)
        == []
    )
    assert (
        query(stack, "SELECT 1 AS x FROM client_scopes WHERE scope_id = ANY($1::uuid[])", scope_ids)
        == []
    )
    assert (
        query(stack, "SELECT 1 AS x FROM user_scopes WHERE scope_id = ANY($1::uuid[])", scope_ids)
        == []
    )
    # What held the grants stays, with its other grants.
    assert query(stack, "SELECT 1 AS x FROM roles WHERE id = $1", role_id)
    kept = query(
        stack,
        "SELECT s.value FROM client_scopes cs JOIN clients c ON c.id = cs.client_pk "
        "JOIN scopes s ON s.id = cs.scope_id WHERE c.client_id = $1",
        client.client_id,
    )
    assert kept == [{"value": "openid"}]
    assert query(stack, "SELECT 1 AS x FROM users WHERE id = $1", uuid.UUID(user.id))
    row = admin_api.audit_rows(api["id"])[-1]
    assert (row["action"], row["actor"], row["status_code"]) == ("api.delete", admin_api.actor, 204)
    assert_problem(admin_api.get(f"/admin/apis/{api['id']}"), 404)


def test_delete_api_guarded_and_missing(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    assert_guarded(admin_api, "DELETE", f"/admin/apis/{api['id']}", WRITE)
    assert_problem(admin_api.delete(f"/admin/apis/{MISSING_ID}"), 404)
    assert_problem(admin_api.delete(f"/admin/apis/{MALFORMED_ID}"), 404)
    assert admin_api.get(f"/admin/apis/{api['id']}").status_code == 200


def test_refused_write_is_audited(admin_api: AdminApi) -> None:
    api = new_api(admin_api)
    assert_problem(admin_api.patch(f"/admin/apis/{api['id']}", json={"name": "BAD"}), 422)
    row = admin_api.audit_rows(api["id"])[-1]
    assert row["status_code"] == 422
    assert row["actor"] == admin_api.actor
