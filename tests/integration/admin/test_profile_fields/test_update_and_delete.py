"""``PATCH`` and ``DELETE /admin/profile-fields/{field_id}``."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_PROFILE_FIELDS_WRITE as WRITE,
)
from tests.harness.records import create_user, query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_profile_fields.support import (
    BASE,
    create,
    new_key,
)

pytestmark = pytest.mark.integration


def test_patch_updates_mutable_members_and_is_audited(admin_api: AdminApi) -> None:
    field = create(admin_api, dataType="enum", enumValues=["a"])
    claim = new_key("c")
    resp = admin_api.patch(
        f"{BASE}/{field['id']}",
        json={
            "label": "New",
            "required": True,
            "userWritable": True,
            "enumValues": ["a", "b"],
            "displayOrder": 3,
            "claimName": claim,
            "claimScope": "email",
        },
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["label"], body["required"], body["userWritable"]) == ("New", True, True)
    assert (body["enumValues"], body["displayOrder"]) == (["a", "b"], 3)
    assert (body["claimName"], body["claimScope"]) == (claim, "email")
    assert (body["key"], body["dataType"]) == (field["key"], "enum")
    unmapped = admin_api.patch(
        f"{BASE}/{field['id']}", json={"claimName": None, "claimScope": None}
    )
    assert unmapped.status_code == 200
    assert unmapped.json()["claimName"] is None
    stored = query(
        admin_api.stack,
        "SELECT label, claim_name FROM profile_fields WHERE id = $1",
        uuid.UUID(field["id"]),
    )
    assert stored == [{"label": "New", "claim_name": None}]
    rows = admin_api.audit_rows(field["id"])
    assert [r["action"] for r in rows] == [
        "profile_field.create",
        "profile_field.update",
        "profile_field.update",
    ]
    assert '"claimName"' in str(rows[-1]["detail"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"key": "other"}, "key"),
        ({"dataType": "integer"}, "dataType"),
        ({"unique": True}, "unique"),
        ({"groupId": MISSING_ID}, "groupId"),
        ({"color": "red"}, "color"),
        ({"label": ""}, "label"),
        ({"label": None}, "label"),
        ({"claimName": "department_x"}, "claimScope"),
        ({"claimName": "sid", "claimScope": "profile"}, "claimName"),
        ({"claimName": "dept_x", "claimScope": "nope"}, "claimScope"),
        ({"validators": {"min": 3}}, "validators.min"),
        ({"enumValues": ["a"]}, "enumValues"),
    ],
)
def test_patch_refuses(admin_api: AdminApi, body: dict[str, Any], field: str) -> None:
    created = create(admin_api)
    resp = admin_api.patch(f"{BASE}/{created['id']}", json=body)
    assert_problem(resp, 422, field=field)
    assert admin_api.get(f"{BASE}/{created['id']}").json() == created


def test_patch_missing_and_guarded(admin_api: AdminApi) -> None:
    assert_problem(admin_api.patch(f"{BASE}/{MISSING_ID}", json={"label": "x"}), 404)
    assert_problem(admin_api.patch(f"{BASE}/nope", json={"label": "x"}), 404)
    field = create(admin_api)
    assert_guarded(admin_api, "PATCH", f"{BASE}/{field['id']}", WRITE, json={"label": "x"})


def test_patch_claim_name_taken(admin_api: AdminApi) -> None:
    taken = create(admin_api, claimName=new_key("c"), claimScope="profile")
    other = create(admin_api)
    resp = admin_api.patch(
        f"{BASE}/{other['id']}", json={"claimName": taken["claimName"], "claimScope": "profile"}
    )
    assert_problem(resp, 409)


def test_delete_removes_every_value(admin_api: AdminApi) -> None:
    field = create(admin_api)
    people = [create_user(admin_api.stack) for _ in range(2)]
    for person in people:
        resp = admin_api.patch(f"/admin/users/{person.id}/profile", json={field["key"]: "v"})
        assert resp.status_code == 200, resp.text
    count = "SELECT count(*) AS n FROM profile_values WHERE field_id = $1"
    assert query(admin_api.stack, count, uuid.UUID(field["id"])) == [{"n": 2}]
    resp = admin_api.delete(f"{BASE}/{field['id']}")
    assert resp.status_code == 204
    assert query(admin_api.stack, count, uuid.UUID(field["id"])) == [{"n": 0}]
    assert_problem(admin_api.get(f"{BASE}/{field['id']}"), 404)
    assert admin_api.audit_rows(field["id"])[-1]["action"] == "profile_field.delete"
    profile = admin_api.get(f"/admin/users/{people[0].id}/profile").json()
    assert field["key"] not in profile


def test_delete_missing_and_guarded(admin_api: AdminApi) -> None:
    assert_problem(admin_api.delete(f"{BASE}/{MISSING_ID}"), 404)
    assert_problem(admin_api.delete(f"{BASE}/nope"), 404)
    field = create(admin_api)
    assert_guarded(admin_api, "DELETE", f"{BASE}/{field['id']}", WRITE)
    assert admin_api.get(f"{BASE}/{field['id']}").status_code == 200
