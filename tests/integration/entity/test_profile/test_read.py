"""``GET /entity/profile``: the facts, the readable fields, the photo's URL; guards."""

from __future__ import annotations

import uuid

import pytest

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_READ, SCOPE_IDP_ACCOUNT_WRITE
from tests.harness.api import ApiClient
from tests.harness.records import TestUser, query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import (
    ALL_SELF_SERVICE_SCOPES,
    EntityApi,
    assert_guarded,
    assert_problem,
)
from tests.integration.entity.test_profile.support import (
    PROFILE,
    SCHEMA,
    admin_sets,
    field,
)

pytestmark = pytest.mark.integration


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
