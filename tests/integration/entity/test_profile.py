"""``GET/PATCH /entity/profile`` and ``GET /entity/profile/schema`` (spec part 4 "Entity
(self-service)"; part 2 "Profile field"; issue 5 acceptance 1 and 2): the built-in facts
and readable fields, PATCH of exactly the ``userWritable`` fields that apply (any other key
is a 422 and nothing changes), validators and ``unique`` as in the admin API, group fields
only for members, and the built-in ``displayName``/``username``."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_READ, SCOPE_IDP_ACCOUNT_WRITE
from tests.harness.api import ApiClient
from tests.harness.records import TestUser, create_user, query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import (
    ALL_SELF_SERVICE_SCOPES,
    EntityApi,
    assert_guarded,
    assert_problem,
)

pytestmark = pytest.mark.integration
PROFILE = "/entity/profile"
SCHEMA = "/entity/profile/schema"


@pytest.fixture
def admin(stack: Stack) -> Any:
    api = AdminApi(stack)
    try:
        yield api
    finally:
        api.close()


def new_key(prefix: str = "f") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def field(admin: AdminApi, **body: Any) -> str:
    """Create a profile field (writable by the person unless said otherwise); its key."""
    body.setdefault("key", new_key())
    body.setdefault("label", "A field")
    body.setdefault("userWritable", True)
    resp = admin.post("/admin/profile-fields", json=body)
    assert resp.status_code == 201, resp.text
    return str(body["key"])


def admin_sets(admin: AdminApi, person: TestUser, values: dict[str, Any]) -> None:
    resp = admin.patch(f"/admin/users/{person.id}/profile", json=values)
    assert resp.status_code == 200, resp.text


def stored(stack: Stack, person: TestUser) -> dict[str, str]:
    rows = query(
        stack,
        "SELECT f.key, v.value FROM profile_values v JOIN profile_fields f ON f.id = v.field_id "
        "WHERE v.user_id = $1",
        uuid.UUID(person.id),
    )
    return {str(r["key"]): str(r["value"]) for r in rows}


def user_row(stack: Stack, person: TestUser) -> dict[str, object]:
    return query(
        stack,
        "SELECT username, display_name, updated_at FROM users WHERE id = $1",
        uuid.UUID(person.id),
    )[0]


def new_group(stack: Stack, *members: TestUser) -> str:
    group = query(stack, "INSERT INTO groups (name) VALUES ($1) RETURNING id", new_key("g"))[0]
    for member in members:
        query(
            stack,
            "INSERT INTO group_members (group_id, user_id) VALUES ($1, $2)",
            group["id"],
            uuid.UUID(member.id),
        )
    return str(group["id"])


def schema_keys(entity_api: EntityApi) -> list[str]:
    resp = entity_api.get(SCHEMA)
    assert resp.status_code == 200, resp.text
    return [item["key"] for item in resp.json()["items"]]


# --- GET /entity/profile --------------------------------------------------------------------


def test_read_shows_the_facts_and_the_readable_fields(
    stack: Stack, admin: AdminApi, person: TestUser, entity_api: EntityApi
) -> None:
    shown, empty = field(admin), field(admin, userWritable=False)
    hidden = field(admin, userReadable=False, userWritable=False)
    admin_sets(admin, person, {shown: "visible", hidden: "secret"})
    resp = entity_api.get(PROFILE)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["id"] == person.id
    assert body["email"] == person.email
    assert body["picture"] is None
    assert {"emailVerified", "username", "displayName", "createdAt", "updatedAt"} <= set(body)
    assert body["fields"][shown] == "visible"
    assert body["fields"][empty] is None
    assert hidden not in body["fields"]
    assert "secret" not in resp.text


def test_picture_is_the_public_url_of_the_photo(
    stack: Stack, person: TestUser, entity_api: EntityApi
) -> None:
    query(stack, "UPDATE users SET picture = 'abc.webp' WHERE id = $1", uuid.UUID(person.id))
    picture = entity_api.get(PROFILE).json()["picture"]
    assert picture == f"{stack.issuer.rstrip('/')}/media/avatars/abc.webp"


def test_a_token_that_is_not_a_person_gets_no_profile(stack: Stack) -> None:
    """A machine client's token has no profile (404); a token of a person who does not
    exist (deleted since it was issued) is refused by the guard (401: issue #19, 12)."""
    for subject, status in (("machine-client", 404), (str(uuid.uuid4()), 401)):
        api = ApiClient(stack, "entity", subject, ALL_SELF_SERVICE_SCOPES)
        try:
            assert_problem(api.get(PROFILE), status)
            assert_problem(api.patch(PROFILE, json={"displayName": "x"}), status)
            assert_problem(api.get(SCHEMA), status)
        finally:
            api.close()


def test_guards(admin: AdminApi, entity_api: EntityApi) -> None:
    key = field(admin)
    assert_guarded(entity_api, "GET", PROFILE, SCOPE_IDP_ACCOUNT_READ)
    assert_guarded(entity_api, "PATCH", PROFILE, SCOPE_IDP_ACCOUNT_WRITE, json={key: "x"})
    assert_guarded(entity_api, "GET", SCHEMA, SCOPE_IDP_ACCOUNT_READ)


# --- PATCH /entity/profile ------------------------------------------------------------------


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


def _refusable(stack: Stack, admin: AdminApi, someone_else: TestUser) -> dict[str, str]:
    """Keys the person may not write, each with why."""
    return {
        "read only": field(admin, userWritable=False),
        "unreadable": field(admin, userReadable=False, userWritable=False),
        "unreadable but writable": field(admin, userReadable=False, userWritable=True),
        "another group's": field(admin, groupId=new_group(stack, someone_else)),
        "unknown": new_key("none"),
        "built-in email": "email",
        "built-in picture": "picture",
    }


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


# --- GET /entity/profile/schema -------------------------------------------------------------


def test_schema_lists_readable_fields_in_display_order(
    admin: AdminApi, entity_api: EntityApi
) -> None:
    later = field(admin, displayOrder=900_002, userWritable=False)
    first = field(
        admin,
        displayOrder=900_001,
        dataType="enum",
        enumValues=["S", "M"],
        required=True,
        claimName=new_key("claim"),
        claimScope="profile",
    )
    hidden = field(admin, displayOrder=900_000, userReadable=False)
    resp = entity_api.get(SCHEMA)
    assert resp.status_code == 200, resp.text
    items = {item["key"]: item for item in resp.json()["items"]}
    keys = [item["key"] for item in resp.json()["items"]]
    assert hidden not in items
    assert keys.index(first) < keys.index(later)
    orders = [item["displayOrder"] for item in resp.json()["items"]]
    assert orders == sorted(orders)
    assert items[first] == {
        "key": first,
        "label": "A field",
        "dataType": "enum",
        "required": True,
        "unique": False,
        "userWritable": True,
        "validators": {},
        "enumValues": ["S", "M"],
        "displayOrder": 900_001,
    }
    assert items[later]["userWritable"] is False


def test_a_group_field_applies_only_to_members(
    stack: Stack, admin: AdminApi, person: TestUser, entity_api: EntityApi
) -> None:
    scoped = field(admin, groupId=new_group(stack, person))
    assert scoped in schema_keys(entity_api)
    resp = entity_api.patch(PROFILE, json={scoped: "member"})
    assert resp.status_code == 200, resp.text
    assert entity_api.get(PROFILE).json()["fields"][scoped] == "member"

    outsider = EntityApi(stack, create_user(stack))
    try:
        assert scoped not in schema_keys(outsider)
        assert scoped not in outsider.get(PROFILE).json()["fields"]
        assert_problem(outsider.patch(PROFILE, json={scoped: "no"}), 422, field=scoped)
        assert stored(stack, outsider.person) == {}
    finally:
        outsider.close()
