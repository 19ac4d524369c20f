"""20 writers of one unique value at once (issue 21). The administration API's race (20
administrators' writes of a ``unique`` profile field) is in
``tests/integration/admin/test_user_profile.py``; here the people write for themselves:

- 20 people claim one username in the self-service API, each in another letter case (the
  unique index is case-insensitive);
- 20 writers of one value of a ``unique`` profile field, half of them the people
  themselves (``PATCH /entity/profile``), half an administrator for them.

Exactly one write wins, every other is a 409 problem+json naming the field, none is a 5xx,
and exactly one row holds the value.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable

import httpx
import pytest

from tests.harness import records
from tests.harness.api import PROBLEM_JSON, fresh_address
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.races.support import (
    Call,
    at_once,
    no_server_error,
    people,
    self_service_bearer,
    statuses,
)

# many requests at once, each holding a database connection: runs alone (scripts/test.sh)
pytestmark = [pytest.mark.integration, pytest.mark.alone]
WRITERS = 20


def _own_write(stack: Stack, person: records.TestUser, body: dict[str, str]) -> Call:
    bearer = self_service_bearer(stack, person.id)
    url = stack.service_url("entity") + "/entity/profile"
    headers = {"Authorization": f"Bearer {bearer}", "X-Forwarded-For": fresh_address()}

    def call(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        return client.patch(url, json=body, headers=headers)

    return call


def _admin_write(admin: AdminApi, person: records.TestUser, body: dict[str, str]) -> Call:
    url = admin.stack.service_url("admin") + f"/admin/users/{person.id}/profile"
    headers = {"Authorization": f"Bearer {admin.token()}", "X-Forwarded-For": fresh_address()}

    def call(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        return client.patch(url, json=body, headers=headers)

    return call


def _one_winner(answers: list[httpx.Response], field: str) -> None:
    no_server_error(answers)
    assert statuses(answers) == [200] + [409] * (WRITERS - 1), [a.text[:120] for a in answers]
    for refused in (a for a in answers if a.status_code == 409):
        assert refused.headers["content-type"].startswith(PROBLEM_JSON)
        body = refused.json()
        assert body["status"] == 409
        assert field in [e["field"] for e in body.get("errors", [])] or field in body["detail"]


def test_twenty_people_claim_one_username_at_once(stack: Stack) -> None:
    persons = people(stack, WRITERS)
    name = f"taken-{uuid.uuid4().hex[:8]}"
    claims = [
        _own_write(stack, person, {"username": name.upper() if n % 2 else name})
        for n, person in enumerate(persons)
    ]
    _one_winner(at_once(claims), "username")
    holders = records.query(stack, "SELECT id FROM users WHERE lower(username) = $1", name.lower())
    assert len(holders) == 1


def test_twenty_writers_of_one_unique_field_value_through_both_apis(stack: Stack) -> None:
    admin = AdminApi(stack)
    try:
        key = f"badge_{uuid.uuid4().hex[:8]}"
        created = admin.post(
            "/admin/profile-fields",
            json={"key": key, "label": "Badge", "unique": True, "userWritable": True},
        )
        assert created.status_code == 201, created.text
        persons = people(stack, WRITERS)
        value = f"B-{uuid.uuid4().hex[:6]}"
        writes = [
            _own_write(stack, person, {key: value})
            if n % 2
            else _admin_write(admin, person, {key: value})
            for n, person in enumerate(persons)
        ]
        _one_winner(at_once(writes), key)
    finally:
        admin.close()
    holders = records.query(
        stack,
        "SELECT v.user_id FROM profile_values v JOIN profile_fields f ON f.id = v.field_id"
        " WHERE f.key = $1 AND v.value = $2",
        key,
        value,
    )
    assert len(holders) == 1
