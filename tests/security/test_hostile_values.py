"""Values PostgreSQL cannot store, sent where the APIs store or look them up.

PostgreSQL text cannot hold U+0000 (asyncpg raises), nor can a column hold an integer past
its type's range or a moment past year 9999 in UTC. Played as an attacker would: a NUL in
the sign-in email was a 500 and left no ``login.failed`` row; a NUL in an audit filter, a
list cursor whose row id overflows ``bigint``, a NUL in a JSON member or a path parameter
of the admin and self-service APIs, a number past ``integer`` in a profile field's
``displayOrder``: each was a 500.

What must hold now: the sign-in answers as for any unknown account (401, the same body as
a wrong password, a ``login.failed`` row); everywhere else the answer is 422 problem+json
naming the parameter, the member or ``cursor`` (SCIM: 400 ``invalidValue`` or
``invalidFilter`` naming the attribute), nothing is written, and no operation of the
admin, self-service or sign-in API answers 5xx to such a value.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    SCOPE_IDP_SCIM_READ,
    SCOPE_IDP_SCIM_WRITE,
    SELF_SERVICE_SCOPES,
)
from idp_common.protocol.rfc4648_base64url import base64url_encode
from tests.harness.api import TWO_FACTOR_SIGN_IN, ApiClient, assert_problem, create_administrator
from tests.harness.records import create_client as create_app
from tests.harness.records import create_user, query
from tests.harness.stack import Stack
from tests.integration.scim.support import GROUP, assert_scim_error, new_user_body
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    new_challenge,
    post,
    signin_client,
)
from tests.security.hostile_support import unchanged_database
from tests.security.hostile_values_support import probes

pytestmark = pytest.mark.integration
EVERY_ADMIN_SCOPE = (*ADMIN_SCOPES, SCOPE_IDP_SCIM_READ, SCOPE_IDP_SCIM_WRITE)
BULK = "urn:ietf:params:scim:api:messages:2.0:BulkRequest"


@pytest.fixture
def admin(stack: Stack) -> Iterator[ApiClient]:
    person = create_administrator(stack, EVERY_ADMIN_SCOPE)
    api = ApiClient(stack, "admin", person, EVERY_ADMIN_SCOPE, fresh_sign_in=True)
    api.claims = dict(TWO_FACTOR_SIGN_IN)
    try:
        yield api
    finally:
        api.close()


@pytest.fixture
def entity(stack: Stack) -> Iterator[ApiClient]:
    api = ApiClient(stack, "entity", create_user(stack).id, SELF_SERVICE_SCOPES, fresh_sign_in=True)
    try:
        yield api
    finally:
        api.close()


def assert_names(answer: httpx.Response, field: str) -> None:
    """422 problem+json ``validation_failed`` (or a cursor's ``invalid_argument``) naming
    ``field``."""
    assert_problem(answer, 422, field=field)


def cursor_of(raw: str | list[Any]) -> str:
    text = raw if isinstance(raw, str) else json.dumps(raw)
    return base64url_encode(text.encode())


# --- sign-in -----------------------------------------------------------------------------


def test_a_nul_in_the_sign_in_email_answers_as_an_unknown_account(stack: Stack) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    base = stack.service_url("authui-api")
    with signin_client(base) as client:
        wrong = post(
            client,
            "/login",
            {"challenge": new_challenge(stack, rp), "email": person.email, "password": "nope"},
        )
        hostile = post(
            client,
            "/login",
            {
                "challenge": new_challenge(stack, rp),
                "email": f"{person.email}\x00",
                "password": person.password,
            },
        )
    assert hostile.status_code == 401, hostile.text
    assert hostile.headers["content-type"] == "application/problem+json"
    assert hostile.json() == wrong.json()
    assert hostile.json()["code"] == "auth.invalid_credentials"
    failed = query(
        stack,
        "SELECT actor, detail->>'reason' AS reason FROM audit_events"
        " WHERE action = 'login.failed' AND target = $1 ORDER BY id",
        rp.client_id,
    )
    assert [(r["actor"], r["reason"]) for r in failed] == [
        (person.id, "password"),
        (None, "unknown_account"),
    ]


# --- the audit log -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["action", "actor", "target"])
def test_a_nul_in_an_audit_filter_is_422_naming_it(admin: ApiClient, name: str) -> None:
    assert_names(admin.get("/admin/audit", params={name: "\x00"}), name)


@pytest.mark.parametrize(
    "raw",
    [
        f"2024-01-01T00:00:00+00:00|{2**63}",
        f"2024-01-01T00:00:00+00:00|{-(2**63) - 1}",
        f"2024-01-01T00:00:00+00:00|{10**30}",
        "0001-01-01T00:00:00+14:00|1",
        "9999-12-31T23:59:59-14:00|1",
    ],
    ids=["id-2^63", "id-below-bigint", "id-10^30", "year-1-east", "year-9999-west"],
)
def test_an_audit_cursor_out_of_range_is_422_naming_cursor(admin: ApiClient, raw: str) -> None:
    assert_names(admin.get("/admin/audit", params={"cursor": cursor_of(raw)}), "cursor")


@pytest.mark.parametrize("name", ["since", "until"])
@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_an_audit_moment_out_of_range_is_422_naming_it(
    admin: ApiClient, name: str, moment: str
) -> None:
    assert_names(admin.get("/admin/audit", params={name: moment}), name)


# --- lists, parameters and bodies of the admin and self-service APIs ---------------------


@pytest.mark.parametrize(
    ("path", "raw"),
    [
        ("/admin/profile-fields", [2**40, "key"]),
        ("/admin/profile-fields", [1, "key\u0000"]),
        ("/admin/users", ["a\u0000", str(uuid.uuid4())]),
        ("/admin/roles", ["a\u0000", str(uuid.uuid4())]),
    ],
    ids=["integer-past-int4", "nul-in-key", "nul-in-email", "nul-in-name"],
)
def test_a_list_cursor_postgres_cannot_hold_is_422_naming_cursor(
    admin: ApiClient, path: str, raw: list[Any]
) -> None:
    assert_names(admin.get(path, params={"cursor": cursor_of(raw)}), "cursor")


@pytest.mark.parametrize("name", ["email", "username"])
def test_a_nul_in_a_query_parameter_is_422_naming_it(admin: ApiClient, name: str) -> None:
    assert_names(admin.get("/admin/users", params={name: "a\x00"}), name)


def test_a_nul_in_a_path_parameter_is_422_naming_it(
    stack: Stack, admin: ApiClient, entity: ApiClient
) -> None:
    with unchanged_database(stack):
        assert_names(admin.get("/admin/clients/a%00b"), "client_id")
        assert_names(admin.put("/admin/clients/a%00b/scopes", json={"scopes": []}), "client_id")
        assert_names(entity.delete("/entity/connections/a%00b"), "client_id")


def test_a_nul_in_a_json_member_is_422_naming_it_and_writes_nothing(
    stack: Stack, admin: ApiClient
) -> None:
    group = admin.post("/admin/groups", json={"name": f"g-{uuid.uuid4().hex[:8]}"}).json()
    person = create_user(stack)
    with unchanged_database(stack):
        assert_names(admin.post("/admin/roles", json={"name": "a\x00b"}), "name")
        described = admin.patch(f"/admin/groups/{group['id']}", json={"description": "\x00"})
        assert_names(described, "description")
        scopes = admin.put(f"/admin/users/{person.id}/scopes", json={"scopes": ["a\x00"]})
        assert_names(scopes, "scopes[0]")
        field = {
            "key": f"k{uuid.uuid4().hex[:8]}",
            "label": "Label",
            "dataType": "string",
            "validators": {"pattern": "^a\x00$"},
        }
        assert_names(admin.post("/admin/profile-fields", json=field), "validators.pattern")


@pytest.mark.parametrize("number", [2**31, 2**63, -(2**63) - 1])
def test_an_integer_past_its_column_is_422_naming_it(
    stack: Stack, admin: ApiClient, number: int
) -> None:
    field = {
        "key": f"k{uuid.uuid4().hex[:8]}",
        "label": "Label",
        "dataType": "string",
        "displayOrder": number,
    }
    with unchanged_database(stack):
        assert_names(admin.post("/admin/profile-fields", json=field), "displayOrder")


# --- SCIM --------------------------------------------------------------------------------


def test_scim_values_postgres_cannot_hold_are_invalid(stack: Stack, admin: ApiClient) -> None:
    with unchanged_database(stack):
        user = admin.post("/scim/v2/Users", json=new_user_body(userName="a\x00b"))
        assert_scim_error(user, 400, "invalidValue", naming="userName")
        body = new_user_body(externalId="x\x00")
        assert_scim_error(
            admin.post("/scim/v2/Users", json=body), 400, "invalidValue", "externalId"
        )
        group = admin.post("/scim/v2/Groups", json={"schemas": [GROUP], "displayName": "g\x00"})
        assert_scim_error(group, 400, "invalidValue", naming="displayName")
        operation = {
            "method": "POST",
            "path": "/Groups",
            "bulkId": "one",
            "data": {"schemas": [GROUP], "displayName": "g\x00"},
        }
        bulk = admin.post("/scim/v2/Bulk", json={"schemas": [BULK], "Operations": [operation]})
        assert bulk.status_code == 200, bulk.text
        (result,) = bulk.json()["Operations"]
        assert result["status"] == "400", result
        assert result["response"]["scimType"] == "invalidValue", result
        assert "displayName" in result["response"]["detail"], result
    for moment in ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"):
        listed = admin.get("/scim/v2/Users", params={"filter": f'meta.lastModified gt "{moment}"'})
        assert_scim_error(listed, 400, "invalidFilter", naming="meta.lastModified")


# --- every operation ---------------------------------------------------------------------


def _ids(stack: Stack, admin: ApiClient) -> dict[str, str]:
    """Real ids for the path parameters, so that requests get past the lookups."""
    n = uuid.uuid4().hex[:8]
    made = {
        "group_id": admin.post("/admin/groups", json={"name": f"g-{n}"}),
        "role_id": admin.post("/admin/roles", json={"name": f"r-{n}"}),
        "api_id": admin.post(
            "/admin/apis", json={"name": f"api-{n}", "audience": f"https://{n}.example.com"}
        ),
        "field_id": admin.post(
            "/admin/profile-fields", json={"key": f"f{n}", "label": "F", "dataType": "string"}
        ),
    }
    ids = {name: str(answer.json()["id"]) for name, answer in made.items()}
    ids["client_id"] = create_app(stack).client_id
    ids["user_id"] = create_user(stack).id
    return ids


@pytest.mark.parametrize("service", ["admin", "entity", "authui-api"])
def test_no_operation_answers_5xx_to_a_value_postgres_cannot_hold(
    stack: Stack, admin: ApiClient, entity: ApiClient, service: str
) -> None:
    api = {"admin": admin, "entity": entity}.get(service)
    base = stack.service_url(service)
    document = httpx.get(f"{base}/openapi.json", timeout=20).json()
    ids = _ids(stack, admin) if service == "admin" else {}
    failures = []
    with httpx.Client(base_url=base, timeout=30) as plain:
        for probe in probes(document, ids):
            if api is not None:
                answer = api.call(
                    probe.method, probe.path, params=dict(probe.query), json=probe.body
                )
            else:
                answer = plain.request(
                    probe.method, probe.path, params=dict(probe.query), json=probe.body
                )
            if answer.status_code >= 500:
                failures.append(f"{probe.method} {probe.path} {probe.what}: {answer.status_code}")
    assert failures == [], "\n".join(failures)
