"""``/admin/profile-fields`` (spec part 2 "Profile field" rules 1-10, part 4 "Admin:
profile fields"; DESIGN.md "Profile fields"): each route's success, 401/403, 404 and 422
naming the field; what is stored; the audit rows."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_PROFILE_FIELDS_READ as READ,
)
from idp_common.protocol.constants import (
    SCOPE_IDP_PROFILE_FIELDS_WRITE as WRITE,
)
from tests.harness.records import create_user, query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem

pytestmark = pytest.mark.integration
BASE = "/admin/profile-fields"


def new_key(prefix: str = "f") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def create(api: AdminApi, **body: Any) -> dict[str, Any]:
    body.setdefault("key", new_key())
    body.setdefault("label", "A field")
    resp = api.post(BASE, json=body)
    assert resp.status_code == 201, resp.text
    created: dict[str, Any] = resp.json()
    return created


def make_group(api: AdminApi) -> str:
    rows = query(api.stack, "INSERT INTO groups (name) VALUES ($1) RETURNING id", new_key("g"))
    return str(rows[0]["id"])


# --- POST -------------------------------------------------------------------------------


def test_create_applies_the_defaults_and_is_audited(admin_api: AdminApi) -> None:
    last = create(admin_api)
    key = new_key()
    resp = admin_api.post(BASE, json={"key": key, "label": "Department"})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body["key"] == key
    assert body["dataType"] == "string"
    assert body["required"] is False
    assert body["unique"] is False
    assert body["userReadable"] is True
    assert body["userWritable"] is False
    assert body["validators"] == {}
    assert body["enumValues"] is None
    assert body["groupId"] is None
    assert body["claimName"] is None
    assert body["claimScope"] is None
    assert body["displayOrder"] > last["displayOrder"]  # after the last field
    stored = query(
        admin_api.stack,
        "SELECT key, data_type FROM profile_fields WHERE id = $1",
        uuid.UUID(body["id"]),
    )
    assert stored == [{"key": key, "data_type": "string"}]
    rows = admin_api.audit_rows(body["id"])
    assert [(r["action"], r["status_code"], r["actor"]) for r in rows] == [
        ("profile_field.create", 201, admin_api.actor)
    ]


def test_create_every_member(admin_api: AdminApi) -> None:
    group = make_group(admin_api)
    claim = new_key("claim")
    body = create(
        admin_api,
        label="Shirt size",
        dataType="enum",
        enumValues=["S", "M", "L"],
        required=True,
        unique=False,
        userReadable=False,
        userWritable=True,
        displayOrder=7,
        groupId=group,
        claimName=claim,
        claimScope="profile",
    )
    assert body["enumValues"] == ["S", "M", "L"]
    assert body["groupId"] == group
    assert (body["claimName"], body["claimScope"]) == (claim, "profile")
    assert (body["required"], body["userReadable"], body["userWritable"]) == (True, False, True)
    assert body["displayOrder"] == 7
    integer = create(admin_api, dataType="integer", validators={"min": 1, "max": 9})
    assert integer["validators"] == {"min": 1, "max": 9}
    day = create(admin_api, dataType="date", validators={"min": "1900-01-01"})
    assert day["validators"] == {"min": "1900-01-01"}


def test_create_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "POST", BASE, WRITE, json={"key": new_key(), "label": "x"})


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"label": "x"}, "key"),
        ({"key": "Bad-Key", "label": "x"}, "key"),
        ({"key": "a" * 64, "label": "x"}, "key"),
        ({"key": "{key}"}, "label"),
        ({"key": "{key}", "label": " "}, "label"),
        ({"key": "{key}", "label": "x", "dataType": "float"}, "dataType"),
        ({"key": "{key}", "label": "x", "color": "red"}, "color"),
        ({"key": "{key}", "label": "x", "dataType": "enum"}, "enumValues"),
        ({"key": "{key}", "label": "x", "dataType": "enum", "enumValues": []}, "enumValues"),
        (
            {"key": "{key}", "label": "x", "dataType": "enum", "enumValues": ["a", "a"]},
            "enumValues",
        ),
        ({"key": "{key}", "label": "x", "enumValues": ["a"]}, "enumValues"),
        ({"key": "{key}", "label": "x", "validators": {"min": 1}}, "validators.min"),
        (
            {"key": "{key}", "label": "x", "dataType": "integer", "validators": {"pattern": "a"}},
            "validators.pattern",
        ),
        (
            {"key": "{key}", "label": "x", "dataType": "boolean", "validators": {"maxLength": 3}},
            "validators.maxLength",
        ),
        (
            {"key": "{key}", "label": "x", "validators": {"pattern": "(unclosed"}},
            "validators.pattern",
        ),
        (
            {"key": "{key}", "label": "x", "validators": {"minLength": 5, "maxLength": 2}},
            "validators.minLength",
        ),
        (
            {
                "key": "{key}",
                "label": "x",
                "dataType": "integer",
                "validators": {"min": 5, "max": 2},
            },
            "validators.min",
        ),
        (
            {"key": "{key}", "label": "x", "dataType": "date", "validators": {"max": "tomorrow"}},
            "validators.max",
        ),
        ({"key": "{key}", "label": "x", "claimName": "{claim}"}, "claimScope"),
        ({"key": "{key}", "label": "x", "claimScope": "profile"}, "claimName"),
        ({"key": "{key}", "label": "x", "claimName": "SUB", "claimScope": "profile"}, "claimName"),
        (
            {"key": "{key}", "label": "x", "claimName": "email", "claimScope": "profile"},
            "claimName",
        ),
        (
            {"key": "{key}", "label": "x", "claimName": "{claim}", "claimScope": "no:such:scope"},
            "claimScope",
        ),
        ({"key": "{key}", "label": "x", "groupId": MISSING_ID}, "groupId"),
        ({"key": "{key}", "label": "x", "required": "yes"}, "required"),
    ],
)
def test_create_refuses_bad_input(admin_api: AdminApi, body: dict[str, Any], field: str) -> None:
    filled = {
        k: v.format(key=new_key(), claim=new_key("c")) if isinstance(v, str) else v
        for k, v in body.items()
    }
    resp = admin_api.post(BASE, json=filled)
    assert_problem(resp, 422, field=field)
    if "key" in filled:
        assert (
            query(admin_api.stack, "SELECT 1 FROM profile_fields WHERE key = $1", filled["key"])
            == []
        )


def test_unknown_validator_is_named(admin_api: AdminApi) -> None:
    resp = admin_api.post(BASE, json={"key": new_key(), "label": "x", "validators": {"regex": "a"}})
    assert_problem(resp, 422, field="validators.regex")


def test_key_and_claim_name_are_unique(admin_api: AdminApi) -> None:
    first = create(admin_api, claimName=new_key("c"), claimScope="profile")
    again = admin_api.post(BASE, json={"key": first["key"], "label": "y"})
    assert_problem(again, 409, field="key")
    same_claim = admin_api.post(
        BASE,
        json={
            "key": new_key(),
            "label": "y",
            "claimName": first["claimName"],
            "claimScope": "email",
        },
    )
    assert_problem(same_claim, 409, field="claimName")


# --- GET list, presets, one ---------------------------------------------------------------


def test_list_by_display_order_then_key_paged(admin_api: AdminApi) -> None:
    order = 10_000 + uuid.uuid4().int % 1_000_000
    keys = sorted(new_key("z") for _ in range(3))
    for key in reversed(keys):
        create(admin_api, key=key, displayOrder=order)
    seen: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = admin_api.get(BASE, params=params)
        assert page.status_code == 200, page.text
        assert len(page.json()["items"]) <= 2
        seen += page.json()["items"]
        cursor = page.json()["nextCursor"]
        if cursor is None:
            break
    pairs = [(f["displayOrder"], f["key"]) for f in seen]
    assert pairs == sorted(pairs)
    assert [f["key"] for f in seen if f["displayOrder"] == order] == keys
    assert_problem(admin_api.get(BASE, params={"limit": 0}), 422, field="limit")
    assert_problem(admin_api.get(BASE, params={"cursor": "nonsense"}), 422, field="cursor")
    assert_guarded(admin_api, "GET", BASE, READ)


def test_presets_are_templates_for_the_creation_body(admin_api: AdminApi) -> None:
    before = query(admin_api.stack, "SELECT count(*) AS n FROM profile_fields")
    resp = admin_api.get(f"{BASE}/presets")
    assert resp.status_code == 200, resp.text
    presets = resp.json()
    by_key = {p["key"]: p for p in presets}
    for standard in (
        "given_name",
        "family_name",
        "birthdate",
        "phone_number",
        "locale",
        "zoneinfo",
        "website",
    ):
        assert by_key[standard]["claimName"] == standard
        assert by_key[standard]["claimScope"] == "profile"
    assert by_key["birthdate"]["dataType"] == "date"
    assert by_key["phone_number"]["dataType"] == "phone"
    assert by_key["website"]["dataType"] == "url"
    assert by_key["employee_number"]["unique"] is True
    assert {"department", "job_title", "cost_centre"} <= set(by_key)
    assert query(admin_api.stack, "SELECT count(*) AS n FROM profile_fields") == before
    suffix = uuid.uuid4().hex[:6]
    for preset in presets:  # each posts back as it is (names made unique for this run)
        preset["key"] = f"{preset['key']}_{suffix}"
        if preset["claimName"]:
            preset["claimName"] = f"{preset['claimName']}_{suffix}"
        created = admin_api.post(BASE, json=preset)
        assert created.status_code == 201, created.text
        assert admin_api.delete(f"{BASE}/{created.json()['id']}").status_code == 204
    assert_guarded(admin_api, "GET", f"{BASE}/presets", READ)


def test_get_one(admin_api: AdminApi) -> None:
    field = create(admin_api)
    resp = admin_api.get(f"{BASE}/{field['id']}")
    assert resp.status_code == 200
    assert resp.json() == field
    assert_problem(admin_api.get(f"{BASE}/{MISSING_ID}"), 404)
    assert_problem(admin_api.get(f"{BASE}/not-a-uuid"), 404)
    assert_guarded(admin_api, "GET", f"{BASE}/{field['id']}", READ)


# --- PATCH --------------------------------------------------------------------------------


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


# --- DELETE -------------------------------------------------------------------------------


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
