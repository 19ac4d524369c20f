"""``/scim/v2/Users`` and discovery, raw over HTTP through the proxy: paging, sorting,
filters, ``attributes``/``excludedAttributes``, ETags, PUT, errors and authorization."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import SCOPE_IDP_SCIM_READ, SCOPE_IDP_USERS_READ
from tests.harness.api import create_administrator
from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import ALL_ADMIN_SCOPES, MISSING_ID, AdminApi
from tests.integration.scim.support import (
    EXTENSION,
    PATCH_OP,
    SCIM_JSON,
    SEARCH,
    USER,
    assert_scim_error,
    machine_token,
    new_user_body,
    scim_http,
    unique,
    user_row,
)

pytestmark = pytest.mark.integration


def create(scim: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    answer = scim.post("/Users", json=body, headers={"Content-Type": SCIM_JSON})
    assert answer.status_code == 201, answer.text
    assert answer.headers["content-type"].startswith(SCIM_JSON)
    assert answer.headers["location"] == answer.json()["meta"]["location"]
    assert answer.headers["etag"] == answer.json()["meta"]["version"]
    created: dict[str, Any] = answer.json()
    return created


def test_discovery(scim: httpx.Client, stack: Stack) -> None:
    config = scim.get("/ServiceProviderConfig").json()
    assert config["bulk"] == {"supported": True, "maxOperations": 100, "maxPayloadSize": 1048576}
    assert config["etag"]["supported"] and config["patch"]["supported"]
    assert config["filter"] == {"supported": True, "maxResults": 200}
    types = scim.get("/ResourceTypes").json()
    assert [t["id"] for t in types["Resources"]] == ["User", "Group"]
    assert scim.get("/ResourceTypes/User").json()["schemaExtensions"] == [
        {"schema": EXTENSION, "required": False}
    ]
    schemas = scim.get("/Schemas").json()
    assert {s["id"] for s in schemas["Resources"]} == {
        USER,
        "urn:ietf:params:scim:schemas:core:2.0:Group",
        EXTENSION,
    }
    user = scim.get(f"/Schemas/{USER}").json()
    assert {a["name"] for a in user["attributes"]} == {
        "userName",
        "displayName",
        "active",
        "emails",
        "groups",
    }
    assert_scim_error(scim.get("/Schemas/urn:nope"), 404)
    assert_scim_error(scim.get("/Nothing/here"), 404)


def test_create_read_and_audit(scim: httpx.Client, stack: Stack, admin_api: AdminApi) -> None:
    body = new_user_body(externalId="ext-1")
    created = create(scim, body)
    assert created["userName"] == body["userName"]
    assert created["emails"] == [
        {"value": body["emails"][0]["value"], "type": "work", "primary": True}
    ]
    assert created["active"] is True and created["externalId"] == "ext-1"
    assert created["meta"]["resourceType"] == "User"
    again = scim.get(f"/Users/{created['id']}")
    assert again.json() == created
    # A person without a username shows the email as userName.
    email_only = new_user_body()
    email_only["userName"] = email_only["emails"][0]["value"]
    shown = create(scim, email_only)
    row = user_row(stack, shown["id"])
    assert row is not None and row["username"] is None
    assert shown["userName"] == email_only["userName"]
    audit = query(
        stack,
        "SELECT action, status_code, detail->>'via' AS via FROM audit_events WHERE target = $1",
        created["id"],
    )
    assert [(r["action"], r["status_code"], r["via"]) for r in audit] == [
        ("user.create", 201, "scim")
    ]
    # Unknown core attributes (name, title) are ignored; displayName comes from name.
    named = new_user_body(name={"givenName": "Grace", "familyName": "Hopper"}, title="Admiral")
    del named["displayName"]
    assert create(scim, named)["displayName"] == "Grace Hopper"


def test_paging_sorting_and_count(scim: httpx.Client) -> None:
    prefix = unique("page")
    ids = [create(scim, new_user_body(userName=f"{prefix}-{n}"))["id"] for n in (3, 1, 4, 2, 5)]
    params: dict[str, Any] = {"filter": f'userName sw "{prefix}"', "sortBy": "userName"}
    page = scim.get("/Users", params={**params, "startIndex": 2, "count": 2}).json()
    assert page["totalResults"] == 5 and page["startIndex"] == 2 and page["itemsPerPage"] == 2
    assert [r["userName"] for r in page["Resources"]] == [f"{prefix}-2", f"{prefix}-3"]
    down = scim.get("/Users", params={**params, "sortOrder": "descending", "count": 2}).json()
    assert [r["userName"] for r in down["Resources"]] == [f"{prefix}-5", f"{prefix}-4"]
    counted = scim.get("/Users", params={**params, "count": 0}).json()
    assert counted["totalResults"] == 5 and counted["Resources"] == []
    past = scim.get("/Users", params={**params, "startIndex": 9}).json()
    assert past["totalResults"] == 5 and past["Resources"] == []
    search = {"schemas": [SEARCH], **params, "startIndex": 1, "count": 10}
    found = scim.post("/Users/.search", json=search).json()
    assert sorted(r["id"] for r in found["Resources"]) == sorted(ids)
    assert_scim_error(scim.get("/Users", params={"filter": "userName zz 1"}), 400, "invalidFilter")


def test_filters(scim: httpx.Client) -> None:
    start = time.time()
    one = create(scim, new_user_body(externalId=unique("x")))
    two = create(scim, new_user_body(active=False))
    email = one["emails"][0]["value"]
    cases = {
        f'emails[type eq "work"].value eq "{email.upper()}"': [one["id"]],
        f'emails co "{email.split("@")[0]}"': [one["id"]],
        f'externalId eq "{one["externalId"]}"': [one["id"]],
        f'id eq "{two["id"]}" and active eq false': [two["id"]],
        f'(id eq "{one["id"]}" or id eq "{two["id"]}") and not (active eq false)': [one["id"]],
        f'id eq "{one["id"]}" and externalId pr': [one["id"]],
        f'id eq "{two["id"]}" and externalId pr': [],
    }
    for text, expected in cases.items():
        answer = scim.get("/Users", params={"filter": text})
        assert answer.status_code == 200, (text, answer.text)
        assert [r["id"] for r in answer.json()["Resources"]] == expected, text
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start - 60))
    recent = scim.get(
        "/Users", params={"filter": f'meta.lastModified gt "{since}" and id eq "{one["id"]}"'}
    )
    assert [r["id"] for r in recent.json()["Resources"]] == [one["id"]]


def test_attributes_and_excluded_attributes(scim: httpx.Client) -> None:
    created = create(scim, new_user_body())
    path = f"/Users/{created['id']}"
    only = scim.get(path, params={"attributes": "userName"}).json()
    assert set(only) == {"schemas", "id", "userName"}
    without = scim.get(path, params={"excludedAttributes": "emails,displayName"}).json()
    assert "emails" not in without and "displayName" not in without and "userName" in without
    listed = scim.get(
        "/Users", params={"filter": f'id eq "{created["id"]}"', "attributes": "emails.value"}
    ).json()
    assert listed["Resources"][0]["emails"] == [{"value": created["emails"][0]["value"]}]


def test_etags(scim: httpx.Client, stack: Stack, admin_api: AdminApi) -> None:
    created = create(scim, new_user_body())
    path = f"/Users/{created['id']}"
    tag = scim.get(path).headers["etag"]
    assert scim.get(path, headers={"If-None-Match": tag}).status_code == 304
    rename = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "replace", "path": "displayName", "value": "New"}],
    }
    stale = scim.patch(path, json=rename, headers={"If-Match": 'W/"other"'})
    assert_scim_error(stale, 412)
    assert user_row(stack, created["id"])["display_name"] == "Provisioned Person"  # type: ignore[index]
    done = scim.patch(path, json=rename, headers={"If-Match": tag})
    assert done.status_code == 200, done.text
    assert done.headers["etag"] != tag
    # Changes made elsewhere are SCIM-visible, so they move the version too.
    key = f"k{unique('e').replace('-', '_')[:20]}"
    field = admin_api.post("/admin/profile-fields", json={"key": key, "label": "K"})
    assert field.status_code == 201, field.text
    before = scim.get(path).headers["etag"]
    set_value = admin_api.patch(f"/admin/users/{created['id']}/profile", json={key: "v"})
    assert set_value.status_code == 200, set_value.text
    after = scim.get(path)
    assert after.headers["etag"] != before
    assert after.json()[EXTENSION][key] == "v"
    group = admin_api.post("/admin/groups", json={"name": unique("g")}).json()
    joined = admin_api.post(
        f"/admin/groups/{group['id']}/members", json={"members": [created["id"]]}
    )
    assert joined.status_code == 200, joined.text
    member = scim.get(path)
    assert member.headers["etag"] != after.headers["etag"]
    assert member.json()["groups"][0]["value"] == group["id"]


def test_put_replaces_and_refusals_change_nothing(scim: httpx.Client, stack: Stack) -> None:
    created = create(scim, new_user_body(externalId="keep"))
    other = create(scim, new_user_body())
    path = f"/Users/{created['id']}"
    replaced = {**new_user_body(), "userName": created["userName"], "displayName": "Replaced"}
    answer = scim.put(path, json=replaced)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["displayName"] == "Replaced" and "externalId" not in body
    assert body["emails"][0]["value"] == replaced["emails"][0]["value"]
    before = user_row(stack, created["id"])
    taken = scim.put(path, json={**replaced, "userName": other["userName"].upper()})
    assert_scim_error(taken, 409, "uniqueness", "userName")
    bad_email = {**replaced, "emails": [{"value": "not an address"}]}
    assert_scim_error(scim.put(path, json=bad_email), 400, "invalidValue", "emails")
    spaces = {**replaced, "userName": "two words"}
    assert_scim_error(scim.put(path, json=spaces), 400, "invalidValue", "userName")
    read_only = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "add", "path": "groups", "value": [{"value": MISSING_ID}]}],
    }
    assert_scim_error(scim.patch(path, json=read_only), 400, "mutability")
    unknown = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "add", "path": f"{EXTENSION}:nope", "value": "x"}],
    }
    assert_scim_error(scim.patch(path, json=unknown), 400, "invalidPath", "nope")
    assert user_row(stack, created["id"]) == before


def test_not_found_and_delete(scim: httpx.Client, stack: Stack) -> None:
    for path in (f"/Users/{MISSING_ID}", "/Users/not-a-uuid", f"/Groups/{MISSING_ID}"):
        assert_scim_error(scim.get(path), 404)
    assert_scim_error(scim.delete("/Users"), 405)
    assert_scim_error(scim.post("/Users", content=b"{nope"), 400, "invalidSyntax")
    assert_scim_error(scim.post("/Users", json=["a list"]), 400, "invalidSyntax")
    created = create(scim, new_user_body())
    path = f"/Users/{created['id']}"
    assert scim.delete(path).status_code == 204
    assert user_row(stack, created["id"]) is None
    assert_scim_error(scim.delete(path), 404)


def test_authorization(stack: Stack, admin_api: AdminApi) -> None:
    with scim_http(stack, None) as anonymous:
        answer = anonymous.get("/Users")
        assert_scim_error(answer, 401)
        assert answer.headers["www-authenticate"].startswith("Bearer")
    reader = machine_token(stack, admin_api, [SCOPE_IDP_SCIM_READ])
    with scim_http(stack, reader) as scim:
        assert scim.get("/Users", params={"count": 1}).status_code == 200
        refused = scim.post("/Users", json=new_user_body())
        assert_scim_error(refused, 403)
        assert "insufficient_scope" in refused.headers["www-authenticate"]
        assert_scim_error(scim.post("/Bulk", json={}), 403)
    other = machine_token(stack, admin_api, [SCOPE_IDP_USERS_READ])
    with scim_http(stack, other) as scim:
        assert_scim_error(scim.get("/Schemas"), 403)
    with scim_http(stack, "not-a-token") as scim:
        assert_scim_error(scim.get("/Users"), 401)


def test_entra_and_okta_user_patches(scim: httpx.Client, stack: Stack) -> None:
    created = create(scim, new_user_body())
    path = f"/Users/{created['id']}"
    address = f"{unique('moved')}@example.com"
    entra = {
        "schemas": [PATCH_OP],
        "Operations": [
            {"op": "Replace", "path": 'emails[type eq "work"].value', "value": address},
            {"op": "Replace", "path": "name.givenName", "value": "Ignored"},
            {"op": "Add", "path": "externalId", "value": "entra-1"},
            {"op": "Replace", "path": "active", "value": "False"},
        ],
    }
    answer = scim.patch(path, json=entra)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["emails"][0]["value"] == address and body["externalId"] == "entra-1"
    assert body["active"] is False
    row = user_row(stack, created["id"])
    assert row is not None and row["email"] == address and row["disabled"] is True
    okta = {"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": True}}]}
    assert scim.patch(path, json=okta).json()["active"] is True
    assert user_row(stack, created["id"])["disabled"] is False  # type: ignore[index]


def test_a_machine_client_cannot_take_over_administrators(
    scim: httpx.Client, stack: Stack, admin_api: AdminApi
) -> None:
    """The admin API's authority applies: disabling or re-addressing an administrator needs
    a person signed in with two factors, and joining a group gives its roles' scopes only
    to a caller holding them (docs/admin-api.md "Granting and credentials")."""
    administrator = create_administrator(stack, ALL_ADMIN_SCOPES)
    path = f"/Users/{administrator}"
    off = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "replace", "path": "active", "value": False}],
    }
    assert_scim_error(scim.patch(path, json=off), 403)
    assert_scim_error(scim.delete(path), 403)
    assert user_row(stack, administrator)["disabled"] is False  # type: ignore[index]

    role = admin_api.post("/admin/roles", json={"name": unique("powerful")}).json()
    granted = admin_api.put(
        f"/admin/roles/{role['id']}/scopes", json={"scopes": [SCOPE_IDP_USERS_READ]}
    )
    assert granted.status_code == 200, granted.text
    group = admin_api.post("/admin/groups", json={"name": unique("admins")}).json()
    linked = admin_api.put(f"/admin/groups/{group['id']}/roles", json={"roles": [role["id"]]})
    assert linked.status_code == 200, linked.text
    person = create(scim, new_user_body())["id"]
    join = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "add", "path": "members", "value": [{"value": person}]}],
    }
    assert_scim_error(scim.patch(f"/Groups/{group['id']}", json=join), 403, None, "idp:users:read")
    assert not query(stack, "SELECT 1 FROM group_members WHERE user_id = $1::uuid", person)


def test_profile_field_rules(scim: httpx.Client, stack: Stack, admin_api: AdminApi) -> None:
    """Required (kept once set), enum, integer and group-bound fields, as the admin API."""
    n = unique("f").replace("-", "_")[:16]
    group = admin_api.post("/admin/groups", json={"name": unique("g")}).json()
    defined = {
        f"{n}_req": {"required": True},
        f"{n}_enum": {"dataType": "enum", "enumValues": ["a", "b"]},
        f"{n}_int": {"dataType": "integer", "validators": {"min": 1}},
        f"{n}_grp": {"groupId": group["id"]},
    }
    for key, more in defined.items():
        answer = admin_api.post("/admin/profile-fields", json={"key": key, "label": key, **more})
        assert answer.status_code == 201, answer.text
    schema = scim.get(f"/Schemas/{EXTENSION}").json()
    attrs = {a["name"]: a for a in schema["attributes"]}
    assert attrs[f"{n}_req"]["required"] is True
    assert attrs[f"{n}_enum"]["canonicalValues"] == ["a", "b"]
    assert attrs[f"{n}_int"]["type"] == "integer"
    created = create(scim, new_user_body(**{EXTENSION: {f"{n}_req": "x", f"{n}_int": 2}}))
    path = f"/Users/{created['id']}"
    assert created[EXTENSION] == {f"{n}_req": "x", f"{n}_int": 2}
    remove = {"op": "remove", "path": f"{EXTENSION}:{n}_req"}
    refused = scim.patch(path, json={"schemas": [PATCH_OP], "Operations": [remove]})
    assert refused.status_code == 400 and f"{n}_req" in refused.json()["detail"], refused.text
    cases = [
        ({"op": "replace", "path": f"{EXTENSION}:{n}_enum", "value": "c"}, f"{n}_enum"),
        ({"op": "replace", "path": f"{EXTENSION}:{n}_int", "value": 0}, f"{n}_int"),
        ({"op": "add", "path": f"{EXTENSION}:{n}_grp", "value": "x"}, f"{n}_grp"),
    ]
    for operation, named in cases:
        answer = scim.patch(path, json={"schemas": [PATCH_OP], "Operations": [operation]})
        assert_scim_error(answer, 400, "invalidValue", f"{EXTENSION}:{named}")
    replaced = {**new_user_body(), "userName": created["userName"], EXTENSION: {f"{n}_int": 3}}
    assert_scim_error(scim.put(path, json=replaced), 400, "invalidValue", f"{n}_req")
    assert scim.get(path).json()[EXTENSION] == created[EXTENSION]
    joined = admin_api.post(
        f"/admin/groups/{group['id']}/members", json={"members": [created["id"]]}
    )
    assert joined.status_code == 200, joined.text
    grp = {"op": "add", "path": f"{EXTENSION}:{n}_grp", "value": "member value"}
    answer = scim.patch(path, json={"schemas": [PATCH_OP], "Operations": [grp]})
    assert answer.status_code == 200, answer.text
    assert answer.json()[EXTENSION][f"{n}_grp"] == "member value"
