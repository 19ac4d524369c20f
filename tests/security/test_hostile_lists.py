"""Hostile lists in JSON bodies (issue #21): tens of thousands of entries in one list.

A list the admin API looks up in one query (``IN (...)``) becomes one bind parameter per
entry, and PostgreSQL's protocol takes at most 32,767: a longer list must be a 422
naming the field, not a 500 from the driver, and nothing is written. Sent at the admin
service's port, where the body limit is the service's own (10 MB).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness.api import (
    TWO_FACTOR_SIGN_IN,
    ApiClient,
    assert_problem,
    create_administrator,
)
from tests.harness.records import create_user
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_client
from tests.security.hostile_support import unchanged_database

pytestmark = pytest.mark.integration
MANY = 40_000  # more bind parameters than PostgreSQL's protocol takes (32,767)


@pytest.fixture
def admin(stack: Stack) -> Iterator[ApiClient]:
    person = create_administrator(stack, ADMIN_SCOPES)
    api = ApiClient(stack, "admin", person, ADMIN_SCOPES, fresh_sign_in=True)
    api.claims.update(TWO_FACTOR_SIGN_IN)  # the grant routes need a recent strong sign-in
    try:
        yield api
    finally:
        api.close()


def many_ids() -> list[str]:
    return [str(uuid.uuid4()) for _ in range(MANY)]


def many_names(prefix: str) -> list[str]:
    return [f"{prefix}{n}" for n in range(MANY)]


@pytest.mark.parametrize(
    ("path", "field", "values"),
    [
        ("/admin/users/{user}/scopes", "scopes", lambda: many_names("scope-")),
        ("/admin/users/{user}/roles", "roles", many_ids),
        ("/admin/clients/{client}/scopes", "scopes", lambda: many_names("scope-")),
    ],
    ids=["user-scopes", "user-roles", "client-scopes"],
)
def test_a_list_longer_than_a_query_takes_is_422(
    stack: Stack, admin: ApiClient, path: str, field: str, values: object
) -> None:
    person = create_user(stack)
    client = create_client(stack).client_id
    assert callable(values)
    with unchanged_database(stack):
        answer = admin.put(path.format(user=person.id, client=client), json={field: values()})
    assert_problem(answer, 422, field=field)
    assert "1000" in answer.json()["detail"] + str(answer.json()["errors"])
    assert admin.get(f"/admin/users/{person.id}").status_code == 200


def test_a_client_with_forty_thousand_redirect_uris_is_422(stack: Stack, admin: ApiClient) -> None:
    uris = [f"https://app.example/cb/{n}" for n in range(MANY)]
    body = {"name": "many", "type": "confidential", "redirectUris": uris}
    with unchanged_database(stack):
        answer = admin.post("/admin/clients", json=body)
    assert answer.status_code == 422, answer.text[:300]
    assert admin.get("/admin/clients").status_code == 200
