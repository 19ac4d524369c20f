"""``PATCH /entity/profile``: typed, stored as text, audited; refusals name every key at fault."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.harness.records import TestUser, create_user, query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import (
    EntityApi,
    assert_problem,
)
from tests.integration.entity.test_profile.support import (
    PROFILE,
    _refusable,
    admin_sets,
    field,
    new_key,
    stored,
    user_row,
)

pytestmark = pytest.mark.integration


def test_writable_fields_are_typed_stored_as_text_and_audited(
    stack: Stack, admin: AdminApi, person: TestUser, entity_api: EntityApi
) -> None:
    keys = {
        "string": field(admin),
        "integer": field(admin, dataType="integer"),
        "boolean": field(admin, dataType="boolean"),
        "date": field(admin, dataType="date"),
    }
    sent = {keys["string"]: "Hello", keys["integer"]: 42, keys["boolean"]: True}
    sent[keys["date"]] = "1990-05-17"
    before = user_row(stack, person)["updated_at"]
    resp = entity_api.patch(PROFILE, json=sent)
    assert resp.status_code == 200, resp.text
    assert {k: resp.json()["fields"][k] for k in sent} == sent
    assert stored(stack, person) == {
        keys["string"]: "Hello",
        keys["integer"]: "42",
        keys["boolean"]: "true",
        keys["date"]: "1990-05-17",
    }
    assert user_row(stack, person)["updated_at"] > before  # type: ignore[operator]
    assert {k: entity_api.get(PROFILE).json()["fields"][k] for k in sent} == sent
    row = entity_api.audit_rows(person.id)[-1]
    assert (row["action"], row["actor"], row["target_type"]) == (
        "profile.update",
        person.id,
        "user",
    )
    assert keys["string"] in str(row["detail"])
    assert "Hello" not in str(row["detail"])  # keys, never values


def test_any_key_not_writable_is_422_and_nothing_changes(
    stack: Stack, admin: AdminApi, person: TestUser, entity_api: EntityApi
) -> None:
    writable = field(admin)
    refusable = _refusable(stack, admin, create_user(stack))
    admin_sets(admin, person, {writable: "before", refusable["read only"]: "kept"})
    admin_sets(admin, person, {refusable["unreadable"]: "kept too"})
    values, facts = stored(stack, person), user_row(stack, person)
    for why, key in refusable.items():
        body = {writable: "after", "displayName": "Changed", key: "x"}
        resp = entity_api.patch(PROFILE, json=body)
        assert_problem(resp, 422, field=key)
        assert [e["field"] for e in resp.json()["errors"]] == [key], why
        assert stored(stack, person) == values, why
        assert user_row(stack, person) == facts, why
    assert all(r["action"] != "profile.update" for r in entity_api.audit_rows(person.id))


def test_every_key_at_fault_is_named(admin: AdminApi, entity_api: EntityApi) -> None:
    locked, number = field(admin, userWritable=False), field(admin, dataType="integer")
    resp = entity_api.patch(PROFILE, json={locked: "x", number: "seven", "nope": 1})
    assert_problem(resp, 422)
    assert sorted(e["field"] for e in resp.json()["errors"]) == sorted([locked, number, "nope"])


def test_a_body_that_is_not_an_object_is_422(entity_api: EntityApi) -> None:
    assert_problem(entity_api.patch(PROFILE, json=["not", "an", "object"]), 422)


@pytest.mark.parametrize(
    ("definition", "value"),
    [
        ({"dataType": "string", "validators": {"maxLength": 3}}, "abcd"),
        ({"dataType": "string", "validators": {"pattern": "[0-9]+"}}, "12a"),
        ({"dataType": "integer", "validators": {"min": 1, "max": 5}}, 6),
        ({"dataType": "integer"}, "7"),
        ({"dataType": "boolean"}, "yes"),
        ({"dataType": "date", "validators": {"min": "2000-01-01"}}, "1999-12-31"),
        ({"dataType": "enum", "enumValues": ["a"]}, "b"),
        ({"dataType": "email"}, "not-an-email"),
        ({"dataType": "phone"}, "call me"),
        ({"dataType": "url"}, "ftp://example.com"),
    ],
)
def test_validators_as_in_the_admin_api(
    stack: Stack,
    admin: AdminApi,
    person: TestUser,
    entity_api: EntityApi,
    definition: dict[str, Any],
    value: Any,
) -> None:
    bad, good = field(admin, **definition), field(admin)
    resp = entity_api.patch(PROFILE, json={good: "ok", bad: value})
    assert_problem(resp, 422, field=bad)
    assert stored(stack, person) == {}  # all or nothing
    admin_refused = admin.patch(f"/admin/users/{person.id}/profile", json={bad: value})
    assert_problem(admin_refused, 422, field=bad)  # the same rule on both sides


def test_null_removes_a_value_but_not_a_required_one(
    stack: Stack, admin: AdminApi, person: TestUser, entity_api: EntityApi
) -> None:
    optional, required = field(admin), field(admin, required=True)
    assert entity_api.patch(PROFILE, json={optional: "x", required: "y"}).status_code == 200
    assert_problem(entity_api.patch(PROFILE, json={required: None}), 422, field=required)
    resp = entity_api.patch(PROFILE, json={optional: None})
    assert resp.status_code == 200, resp.text
    assert resp.json()["fields"][optional] is None
    assert stored(stack, person) == {required: "y"}


def test_a_unique_value_held_by_another_is_409(
    stack: Stack, admin: AdminApi, person: TestUser, entity_api: EntityApi
) -> None:
    unique, other = field(admin, unique=True), field(admin)
    holder = create_user(stack)
    admin_sets(admin, holder, {unique: "E-1"})
    taken = entity_api.patch(PROFILE, json={other: "x", unique: "E-1"})
    assert_problem(taken, 409, field=unique)
    assert stored(stack, person) == {}  # the other value rolled back with it
    assert entity_api.patch(PROFILE, json={unique: "E-2"}).status_code == 200
    assert entity_api.patch(PROFILE, json={unique: "E-2"}).status_code == 200  # own value again


def test_display_name_and_username(stack: Stack, person: TestUser, entity_api: EntityApi) -> None:
    name = new_key("u")
    resp = entity_api.patch(PROFILE, json={"displayName": "Ada L.", "username": name})
    assert resp.status_code == 200, resp.text
    assert (resp.json()["displayName"], resp.json()["username"]) == ("Ada L.", name)
    row = user_row(stack, person)
    assert (row["display_name"], row["username"]) == ("Ada L.", name)
    holder = new_key("u")
    other = create_user(stack)
    query(stack, "UPDATE users SET username = $1 WHERE id = $2", holder, uuid.UUID(other.id))
    taken = entity_api.patch(PROFILE, json={"displayName": "B", "username": holder.upper()})
    assert_problem(taken, 409, field="username")
    assert user_row(stack, person)["display_name"] == "Ada L."
    for bad in ({"username": "has space"}, {"username": ""}, {"username": 5}):
        assert_problem(entity_api.patch(PROFILE, json=bad), 422, field="username")
    assert_problem(entity_api.patch(PROFILE, json={"displayName": None}), 422, field="displayName")
    assert_problem(
        entity_api.patch(PROFILE, json={"displayName": "x" * 201}), 422, field="displayName"
    )
    removed = entity_api.patch(PROFILE, json={"username": None})
    assert removed.status_code == 200
    assert removed.json()["username"] is None
    assert user_row(stack, person)["username"] is None


def test_an_empty_body_changes_nothing(
    stack: Stack, person: TestUser, entity_api: EntityApi
) -> None:
    before = user_row(stack, person)
    resp = entity_api.patch(PROFILE, json={})
    assert resp.status_code == 200
    assert resp.json()["id"] == person.id
    assert user_row(stack, person) == before
