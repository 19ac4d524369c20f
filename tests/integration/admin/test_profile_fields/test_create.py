"""``POST /admin/profile-fields``: defaults, every member, refusals, unique key and claim name."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_PROFILE_FIELDS_WRITE as WRITE,
)
from tests.harness.records import query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_profile_fields.support import (
    BASE,
    create,
    make_group,
    new_key,
)

pytestmark = pytest.mark.integration


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
