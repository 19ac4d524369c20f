"""``/scim/v2/Groups`` (members PATCH as Okta and Entra send it) and ``/Bulk``
(``failOnErrors``, ``bulkId`` references, the advertised limits)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import MISSING_ID, AdminApi
from tests.integration.scim.support import (
    BULK,
    GROUP,
    PATCH_OP,
    assert_scim_error,
    new_user_body,
    unique,
    user_row,
)

pytestmark = pytest.mark.integration


def _user(scim: httpx.Client) -> str:
    answer = scim.post("/Users", json=new_user_body())
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def _members(stack: Stack, group_id: str) -> set[str]:
    rows = query(stack, "SELECT user_id FROM group_members WHERE group_id = $1::uuid", group_id)
    return {str(r["user_id"]) for r in rows}


def _patch(scim: httpx.Client, group_id: str, *operations: dict[str, Any]) -> httpx.Response:
    return scim.patch(
        f"/Groups/{group_id}", json={"schemas": [PATCH_OP], "Operations": list(operations)}
    )


def test_group_members_patch(scim: httpx.Client, stack: Stack, admin_api: AdminApi) -> None:
    a, b, c = _user(scim), _user(scim), _user(scim)
    name = unique("crew")
    created = scim.post(
        "/Groups",
        json={
            "schemas": [GROUP],
            "displayName": name,
            "externalId": "okta-1",
            "members": [{"value": a}],
        },
    )
    assert created.status_code == 201, created.text
    group = created.json()
    gid, tag = group["id"], created.headers["etag"]
    assert group["members"][0]["value"] == a and group["members"][0]["type"] == "User"
    user_tag = scim.get(f"/Users/{b}").headers["etag"]

    added = _patch(
        scim, gid, {"op": "add", "path": "members", "value": [{"value": b}, {"value": c}]}
    )
    assert added.status_code == 200, added.text
    assert _members(stack, gid) == {a, b, c}
    assert added.headers["etag"] != tag
    assert scim.get(f"/Users/{b}").headers["etag"] != user_tag  # its groups changed
    assert scim.get(f"/Users/{b}").json()["groups"] == [
        {"value": gid, "$ref": group["meta"]["location"], "display": name}
    ]

    removed = _patch(scim, gid, {"op": "remove", "path": f'members[value eq "{a}"]'})
    assert removed.status_code == 200, removed.text
    assert _members(stack, gid) == {b, c}
    # Entra ID: remove with the values listed, op in another case.
    entra = _patch(scim, gid, {"op": "Remove", "path": "members", "value": [{"value": b}]})
    assert entra.status_code == 200, entra.text
    assert _members(stack, gid) == {c}
    # Okta: replace the whole list and rename in one request.
    okta = _patch(
        scim,
        gid,
        {"op": "replace", "value": {"id": gid, "displayName": f"{name}-2"}},
        {"op": "replace", "path": "members", "value": [{"value": a}]},
    )
    assert okta.status_code == 200, okta.text
    assert okta.json()["displayName"] == f"{name}-2"
    assert _members(stack, gid) == {a}
    # The admin API sees the same group.
    assert admin_api.get(f"/admin/groups/{gid}").json()["memberCount"] == 1

    # Refusals change nothing: an unknown member, a taken name, a missing target.
    before = scim.get(f"/Groups/{gid}").json()
    unknown = _patch(scim, gid, {"op": "add", "path": "members", "value": [{"value": MISSING_ID}]})
    assert_scim_error(unknown, 400, "invalidValue", "members")
    other = scim.post("/Groups", json={"schemas": [GROUP], "displayName": unique("other")}).json()
    taken = _patch(
        scim, gid, {"op": "replace", "path": "displayName", "value": other["displayName"]}
    )
    assert_scim_error(taken, 409, "uniqueness", "displayName")
    missing = _patch(scim, gid, {"op": "remove", "path": f'members[value eq "{b}"]'})
    assert_scim_error(missing, 400, "noTarget")
    assert scim.get(f"/Groups/{gid}").json() == before

    listed = scim.get(
        "/Groups", params={"filter": f'displayName eq "{name}-2"', "excludedAttributes": "members"}
    )
    assert [(g["id"], "members" in g) for g in listed.json()["Resources"]] == [(gid, False)]
    by_member = scim.get("/Groups", params={"filter": f'members.value eq "{a}"'})
    assert gid in [g["id"] for g in by_member.json()["Resources"]]

    assert scim.delete(f"/Groups/{gid}", headers={"If-Match": 'W/"old"'}).status_code == 412
    assert scim.delete(f"/Groups/{gid}").status_code == 204
    assert_scim_error(scim.get(f"/Groups/{gid}"), 404)


def _bulk(scim: httpx.Client, operations: list[dict[str, Any]], **more: Any) -> httpx.Response:
    return scim.post("/Bulk", json={"schemas": [BULK], "Operations": operations, **more})


def test_bulk_fail_on_errors_and_references(scim: httpx.Client, stack: Stack) -> None:
    good = new_user_body()
    bad = new_user_body(emails=[{"value": "nope"}])
    operations = [
        {"method": "POST", "path": "/Users", "bulkId": "bad1", "data": bad},
        {
            "method": "PATCH",
            "path": f"/Users/{MISSING_ID}",
            "data": {
                "schemas": [PATCH_OP],
                "Operations": [{"op": "replace", "path": "displayName", "value": "x"}],
            },
        },
        {"method": "POST", "path": "/Users", "bulkId": "good", "data": good},
    ]
    stopped = _bulk(scim, operations, failOnErrors=2)
    assert stopped.status_code == 200, stopped.text
    results = stopped.json()["Operations"]
    assert [r["status"] for r in results] == ["400", "404"]
    assert results[0]["response"]["scimType"] == "invalidValue"
    assert "emails" in results[0]["response"]["detail"]
    assert not query(stack, "SELECT 1 FROM users WHERE email = $1", good["emails"][0]["value"])

    # Without failOnErrors every operation runs; a reference waits for its target.
    group = {
        "schemas": [GROUP],
        "displayName": unique("bulk"),
        "members": [{"value": "bulkId:good"}],
    }
    refs = [
        {"method": "POST", "path": "/Groups", "bulkId": "g", "data": group},
        {"method": "POST", "path": "/Users", "bulkId": "bad1", "data": bad},
        {"method": "POST", "path": "/Users", "bulkId": "good", "data": good},
        {
            "method": "PATCH",
            "path": "/Users/bulkId:good",
            "data": {
                "schemas": [PATCH_OP],
                "Operations": [{"op": "replace", "path": "displayName", "value": "Bulked"}],
            },
        },
        {
            "method": "POST",
            "path": "/Groups",
            "bulkId": "loop",
            "data": {**group, "displayName": unique("x"), "members": [{"value": "bulkId:never"}]},
        },
    ]
    answer = _bulk(scim, refs).json()["Operations"]
    assert [(r.get("bulkId"), r["status"]) for r in answer] == [
        ("g", "201"),
        ("bad1", "400"),
        ("good", "201"),
        (None, "200"),
        ("loop", "409"),
    ]
    person = answer[2]["location"].rsplit("/", 1)[1]
    assert user_row(stack, person)["display_name"] == "Bulked"  # type: ignore[index]
    assert _members(stack, answer[0]["location"].rsplit("/", 1)[1]) == {person}


def test_bulk_limits(scim: httpx.Client) -> None:
    many = [{"method": "DELETE", "path": f"/Users/{MISSING_ID}"}] * 101
    assert_scim_error(_bulk(scim, many), 413, None, "maxOperations")
    big = [
        {
            "method": "POST",
            "path": "/Users",
            "bulkId": "b",
            "data": new_user_body(displayName="x" * 1_100_000),
        }
    ]
    assert_scim_error(_bulk(scim, big), 413, None, "maxPayloadSize")
    assert_scim_error(scim.post("/Bulk", json={"Operations": []}), 400, "invalidSyntax")
