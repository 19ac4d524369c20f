"""``GET/PATCH /admin/users/{user_id}/profile`` (contract §4 "Admin: users"; part 2
"Profile field" rules 6 and 10): typed values, the fields that apply (global and the
person's groups), all-or-nothing writes, required fields, and the ``unique`` rule under
20 concurrent writers (issue 4 acceptance 3)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import SCOPE_IDP_USERS_READ, SCOPE_IDP_USERS_WRITE
from tests.harness.records import create_user, query
from tests.integration.admin.contract import (
    MISSING_ID,
    PROBLEM_JSON,
    AdminApi,
    assert_guarded,
    assert_problem,
    fresh_address,
)

pytestmark = pytest.mark.integration
FIELDS = "/admin/profile-fields"


def new_key(prefix: str = "f") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def field(api: AdminApi, **body: Any) -> dict[str, Any]:
    body.setdefault("key", new_key())
    body.setdefault("label", "A field")
    resp = api.post(FIELDS, json=body)
    assert resp.status_code == 201, resp.text
    created: dict[str, Any] = resp.json()
    return created


def profile_path(user_id: str) -> str:
    return f"/admin/users/{user_id}/profile"


def stored(api: AdminApi, user_id: str) -> dict[str, str]:
    rows = query(
        api.stack,
        "SELECT f.key, v.value FROM profile_values v JOIN profile_fields f ON f.id = v.field_id "
        "WHERE v.user_id = $1",
        uuid.UUID(user_id),
    )
    return {str(r["key"]): str(r["value"]) for r in rows}


def test_values_are_typed_at_the_edges_and_stored_as_text(admin_api: AdminApi) -> None:
    kinds = {
        "string": ("Hello", "Hello"),
        "integer": (42, "42"),
        "boolean": (True, "true"),
        "date": ("1990-05-17", "1990-05-17"),
        "enum": ("M", "M"),
        "email": ("a@example.com", "a@example.com"),
        "phone": ("+41 44 123 45 67", "+41 44 123 45 67"),
        "url": ("https://example.com/me", "https://example.com/me"),
    }
    keys = {
        kind: field(
            admin_api, dataType=kind, **({"enumValues": ["S", "M"]} if kind == "enum" else {})
        )["key"]
        for kind in kinds
    }
    person = create_user(admin_api.stack)
    body = {keys[kind]: wire for kind, (wire, _) in kinds.items()}
    resp = admin_api.patch(profile_path(person.id), json=body)
    assert resp.status_code == 200, resp.text
    for kind, (wire, text) in kinds.items():
        assert resp.json()[keys[kind]] == wire
        assert stored(admin_api, person.id)[keys[kind]] == text
    read = admin_api.get(profile_path(person.id))
    assert read.status_code == 200
    assert {k: read.json()[k] for k in body} == body
    rows = admin_api.audit_rows(person.id)
    assert rows[-1]["action"] == "user.set_profile"
    assert rows[-1]["actor"] == admin_api.actor
    detail = str(rows[-1]["detail"])
    assert keys["string"] in detail
    assert "Hello" not in detail  # keys, never values


@pytest.mark.parametrize(
    ("definition", "value"),
    [
        ({"dataType": "string", "validators": {"maxLength": 3}}, "abcd"),
        ({"dataType": "string", "validators": {"pattern": "[0-9]+"}}, "12a"),
        ({"dataType": "integer", "validators": {"min": 1, "max": 5}}, 6),
        ({"dataType": "integer"}, "7"),
        ({"dataType": "boolean"}, "yes"),
        ({"dataType": "date", "validators": {"min": "2000-01-01"}}, "1999-12-31"),
        ({"dataType": "date"}, "17.05.1990"),
        ({"dataType": "enum", "enumValues": ["a"]}, "b"),
        ({"dataType": "email"}, "not-an-email"),
        ({"dataType": "phone"}, "call me"),
        ({"dataType": "url"}, "ftp://example.com"),
    ],
)
def test_bad_values_are_refused_naming_the_key(
    admin_api: AdminApi, definition: dict[str, Any], value: Any
) -> None:
    bad = field(admin_api, **definition)
    good = field(admin_api)
    person = create_user(admin_api.stack)
    resp = admin_api.patch(profile_path(person.id), json={good["key"]: "ok", bad["key"]: value})
    assert_problem(resp, 422, field=bad["key"])
    assert stored(admin_api, person.id) == {}  # all or nothing


def test_null_removes_a_value_but_not_a_required_one(admin_api: AdminApi) -> None:
    optional = field(admin_api)
    required = field(admin_api, required=True)
    person = create_user(admin_api.stack)
    path = profile_path(person.id)
    both = {optional["key"]: "x", required["key"]: "y"}
    assert admin_api.patch(path, json=both).status_code == 200
    assert_problem(admin_api.patch(path, json={required["key"]: None}), 422, field=required["key"])
    resp = admin_api.patch(path, json={optional["key"]: None})
    assert resp.status_code == 200
    assert resp.json()[optional["key"]] is None
    assert stored(admin_api, person.id) == {required["key"]: "y"}


def test_a_value_change_moves_the_person_updated_at(admin_api: AdminApi) -> None:
    """SCIM's meta.lastModified is ``users.updated_at`` (docs/scim.md): a profile value
    written through the admin API moves it; a refused write does not."""
    unique = field(admin_api, unique=True)
    person = create_user(admin_api.stack)
    holder = create_user(admin_api.stack)
    taken = f"v-{uuid.uuid4().hex[:8]}"
    assert admin_api.patch(profile_path(holder.id), json={unique["key"]: taken}).status_code == 200

    def updated_at() -> object:
        rows = query(
            admin_api.stack, "SELECT updated_at FROM users WHERE id = $1", uuid.UUID(person.id)
        )
        return rows[0]["updated_at"]

    before = updated_at()
    assert admin_api.patch(profile_path(person.id), json={unique["key"]: "mine"}).status_code == 200
    after = updated_at()
    assert after > before  # type: ignore[operator]
    assert_problem(admin_api.patch(profile_path(person.id), json={unique["key"]: taken}), 409)
    assert updated_at() == after


def test_not_restricted_by_user_writable(admin_api: AdminApi) -> None:
    locked = field(admin_api, userWritable=False, userReadable=False)
    person = create_user(admin_api.stack)
    resp = admin_api.patch(profile_path(person.id), json={locked["key"]: "set by admin"})
    assert resp.status_code == 200, resp.text


def test_group_fields_apply_only_to_members(admin_api: AdminApi) -> None:
    group = query(
        admin_api.stack, "INSERT INTO groups (name) VALUES ($1) RETURNING id", new_key("g")
    )[0]["id"]
    scoped = field(admin_api, groupId=str(group))
    member, outsider = create_user(admin_api.stack), create_user(admin_api.stack)
    query(
        admin_api.stack,
        "INSERT INTO group_members (group_id, user_id) VALUES ($1, $2)",
        group,
        uuid.UUID(member.id),
    )
    assert admin_api.patch(profile_path(member.id), json={scoped["key"]: "in"}).status_code == 200
    assert admin_api.get(profile_path(member.id)).json()[scoped["key"]] == "in"
    refused = admin_api.patch(profile_path(outsider.id), json={scoped["key"]: "out"})
    assert_problem(refused, 422, field=scoped["key"])
    assert scoped["key"] not in admin_api.get(profile_path(outsider.id)).json()


def test_unknown_key_and_bad_body(admin_api: AdminApi) -> None:
    person = create_user(admin_api.stack)
    path = profile_path(person.id)
    assert_problem(admin_api.patch(path, json={"no_such_field": 1}), 422, field="no_such_field")
    assert_problem(admin_api.patch(path, json=["not", "an", "object"]), 422)


def test_get_lists_applicable_fields_with_null(admin_api: AdminApi) -> None:
    empty = field(admin_api)
    person = create_user(admin_api.stack)
    resp = admin_api.get(profile_path(person.id))
    assert resp.status_code == 200
    assert resp.json()[empty["key"]] is None


def test_missing_user_and_guards(admin_api: AdminApi) -> None:
    some = field(admin_api)
    for bad in (MISSING_ID, "not-a-uuid"):
        assert_problem(admin_api.get(profile_path(bad)), 404)
        assert_problem(admin_api.patch(profile_path(bad), json={some["key"]: "x"}), 404)
    person = create_user(admin_api.stack)
    assert_guarded(admin_api, "GET", profile_path(person.id), SCOPE_IDP_USERS_READ)
    assert_guarded(
        admin_api, "PATCH", profile_path(person.id), SCOPE_IDP_USERS_WRITE, json={some["key"]: "x"}
    )


def test_unique_value_held_by_another_is_409(admin_api: AdminApi) -> None:
    unique = field(admin_api, unique=True)
    first, second = create_user(admin_api.stack), create_user(admin_api.stack)
    assert admin_api.patch(profile_path(first.id), json={unique["key"]: "E-1"}).status_code == 200
    # the holder may write the same value again
    assert admin_api.patch(profile_path(first.id), json={unique["key"]: "E-1"}).status_code == 200
    taken = admin_api.patch(profile_path(second.id), json={unique["key"]: "E-1"})
    assert_problem(taken, 409, field=unique["key"])
    assert stored(admin_api, second.id) == {}


async def _race(api: AdminApi, key: str, people: list[str], value: str) -> list[httpx.Response]:
    token = api.token()
    async with httpx.AsyncClient(base_url=api.stack.service_url("admin"), timeout=30) as client:
        start = asyncio.Event()

        async def write(user_id: str) -> httpx.Response:
            await start.wait()
            return await client.patch(
                profile_path(user_id),
                json={key: value},
                headers={"Authorization": f"Bearer {token}", "X-Forwarded-For": fresh_address()},
            )

        tasks = [asyncio.create_task(write(p)) for p in people]
        await asyncio.sleep(0.05)
        start.set()
        return await asyncio.gather(*tasks)


def test_twenty_concurrent_writers_of_one_unique_value(admin_api: AdminApi) -> None:
    unique = field(admin_api, unique=True)
    people = [create_user(admin_api.stack).id for _ in range(20)]
    for round_ in range(10):
        value = f"EMP-{round_}-{uuid.uuid4().hex[:6]}"
        answers = asyncio.run(_race(admin_api, unique["key"], people, value))
        statuses = sorted(r.status_code for r in answers)
        assert statuses == [200] + [409] * 19, statuses
        for refused in (r for r in answers if r.status_code == 409):
            assert refused.headers["content-type"].startswith(PROBLEM_JSON)
            assert unique["key"] in refused.json()["detail"]
        holders = query(
            admin_api.stack,
            "SELECT user_id FROM profile_values WHERE field_id = $1 AND value = $2",
            uuid.UUID(unique["id"]),
            value,
        )
        assert len(holders) == 1
