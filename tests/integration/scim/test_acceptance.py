"""Issue #27, acceptance item 1: a real SCIM client library (scim2-client, which learns
the schemas from the server) provisions through ``/scim/v2`` at the proxy: create,
filter, PATCH, an ETag conflict, bulk, deactivation; a profile field defined through the
admin API appears in ``/Schemas`` and is written and filtered through SCIM; a write that
breaks a validator or a unique rule is a SCIM error naming the attribute and changes
nothing.

A stack of its own: the profile fields here are the only ones, so the schema the client
learns is exactly theirs (other tests leave required fields behind).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, get_args

import pytest
from scim2_models import Error

from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.scim.support import (
    EXTENSION,
    GROUP,
    PATCH_OP,
    USER,
    assert_scim_error,
    machine_token,
    new_user_body,
    profile_values,
    scim_client,
    scim_http,
    unique,
    user_row,
)
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    new_challenge,
    post,
    sessions_of,
    signin_client,
    sql,
    start_session,
)

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def admin(private_stack: Stack) -> Iterator[AdminApi]:
    api = AdminApi(private_stack)
    try:
        yield api
    finally:
        api.close()


@pytest.fixture(scope="module")
def fields(admin: AdminApi) -> dict[str, dict[str, Any]]:
    """Two runtime fields: a department (free text) and a badge (unique, B-dddd)."""
    created: dict[str, dict[str, Any]] = {}
    body: dict[str, Any]
    for body in (
        {"key": "department", "label": "Department"},
        {
            "key": "badge",
            "label": "Badge number",
            "unique": True,
            "validators": {"pattern": r"B-\d{4}"},
        },
    ):
        answer = admin.post("/admin/profile-fields", json=body)
        assert answer.status_code == 201, answer.text
        created[str(body["key"])] = answer.json()
    return created


def _extension_model(model: Any) -> Any:
    (extension,) = [
        get_args(f.annotation)[0]
        for name, f in model.model_fields.items()
        if name == "ProfileFields"
    ]
    return extension


def test_a_scim_client_provisions_through_the_provider(
    private_stack: Stack, admin: AdminApi, fields: dict[str, dict[str, Any]]
) -> None:
    stack = private_stack
    token = machine_token(stack, admin)
    scim: Any = scim_client(stack, token)

    # Discovery: the runtime fields are the extension's attributes.
    user_model: Any = scim.get_resource_model("User")
    assert user_model is not None
    extension = _extension_model(user_model)
    assert {"department", "badge"} <= set(extension.model_fields)
    with scim_http(stack, token) as raw:
        published = raw.get(f"/Schemas/{EXTENSION}").json()
    badge = next(a for a in published["attributes"] if a["name"] == "badge")
    assert (badge["type"], badge["uniqueness"], badge["mutability"]) == (
        "string",
        "server",
        "readWrite",
    )

    # Create, with profile values: stored as through the admin API.
    body = new_user_body(**{EXTENSION: {"department": "Research", "badge": "B-0001"}})
    body["schemas"] = [USER, EXTENSION]
    created = scim.create(user_model, body)
    assert created.id and created.meta.version
    assert created[extension].department == "Research"
    person = admin.get(f"/admin/users/{created.id}").json()
    assert person["email"] == body["emails"][0]["value"]
    assert admin.get(f"/admin/users/{created.id}/profile").json()["badge"] == "B-0001"

    # Filter on a core attribute and on a runtime field.
    department, prefix = f"{EXTENSION}:department", body["userName"][:8]
    found = scim.query(
        user_model,
        query_parameters={"filter": f'{department} eq "Research" and userName sw "{prefix}"'},
    )
    assert [r.id for r in found.resources] == [created.id]
    none = scim.query(user_model, query_parameters={"filter": f'{EXTENSION}:badge eq "B-9999"'})
    assert none.total_results == 0

    # PATCH: a core attribute and a runtime field.
    patch = {
        "schemas": [PATCH_OP],
        "Operations": [
            {"op": "replace", "path": "displayName", "value": "Ada Lovelace"},
            {"op": "replace", "path": f"{EXTENSION}:department", "value": "Engines"},
        ],
    }
    patched = scim.modify(user_model, created.id, patch)
    assert patched.display_name == "Ada Lovelace"
    assert patched[extension].department == "Engines"
    assert patched.meta.version != created.meta.version
    assert profile_values(stack, created.id)["department"] == "Engines"

    # ETag: a replace carrying the version read before the PATCH is refused, and changes nothing.
    created.display_name = "Stale"
    conflict = scim.replace(created, raise_scim_errors=False)
    assert isinstance(conflict, Error) and conflict.status == 412
    assert user_row(stack, created.id)["display_name"] == "Ada Lovelace"  # type: ignore[index]

    # A validator and a unique rule: SCIM errors naming the attribute, nothing changed.
    with scim_http(stack, token) as raw:
        before = user_row(stack, created.id)
        bad = {
            "schemas": [PATCH_OP],
            "Operations": [
                {"op": "replace", "path": "displayName", "value": "Changed"},
                {"op": "replace", "path": f"{EXTENSION}:badge", "value": "not-a-badge"},
            ],
        }
        assert_scim_error(
            raw.patch(f"/Users/{created.id}", json=bad), 400, "invalidValue", f"{EXTENSION}:badge"
        )
        other = new_user_body(**{EXTENSION: {"badge": "B-0001"}})
        taken = raw.post("/Users", json=other)
        assert_scim_error(taken, 409, "uniqueness", f"{EXTENSION}:badge")
        assert not sql(stack, "SELECT 1 FROM users WHERE email = :e", e=other["emails"][0]["value"])
        assert user_row(stack, created.id) == before
        assert profile_values(stack, created.id) == {"department": "Engines", "badge": "B-0001"}

    # Bulk: a person and a group holding them, by bulkId reference.
    second = new_user_body()
    group_name = unique("team")
    bulk = {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "failOnErrors": 1,
        "Operations": [
            {
                "method": "POST",
                "path": "/Groups",
                "bulkId": "team",
                "data": {
                    "schemas": [GROUP],
                    "displayName": group_name,
                    "members": [{"value": "bulkId:person"}, {"value": created.id}],
                },
            },
            {"method": "POST", "path": "/Users", "bulkId": "person", "data": second},
        ],
    }
    answer = scim.bulk(bulk)
    statuses = {op.bulk_id: op.status for op in answer.operations}
    assert statuses == {"team": 201, "person": 201}
    group_id = next(op for op in answer.operations if op.bulk_id == "team").location.rsplit("/")[-1]
    group = scim.query("Group", group_id)
    assert len(group.members) == 2
    assert {m.value for m in group.members} >= {created.id}

    # Deactivation: a person who signed in is disabled, their session ends, sign-in refused.
    signed_in = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    with signin_client(stack.service_url("authui-api")) as client:
        login = {
            "challenge": new_challenge(stack, rp),
            "email": signed_in.email,
            "password": signed_in.password,
        }
        assert post(client, "/login", login).status_code == 200
    start_session(stack, signed_in)
    assert sessions_of(stack, signed_in.id)
    off = {"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": False}}]}
    deactivated = scim.modify(user_model, signed_in.id, off)
    assert deactivated.active is False
    assert user_row(stack, signed_in.id)["disabled"] is True  # type: ignore[index]
    assert sessions_of(stack, signed_in.id) == []
    ended = sql(
        stack,
        "SELECT payload->>'reason' FROM event_outbox WHERE payload->>'user_id' = :u",
        u=signed_in.id,
    )
    assert {r[0] for r in ended} == {"user_disabled"}
    with signin_client(stack.service_url("authui-api")) as client:
        login["challenge"] = new_challenge(stack, rp)
        assert post(client, "/login", login).status_code == 401
    audit = sql(
        stack,
        "SELECT action, detail->>'via' FROM audit_events WHERE target = :u ORDER BY id",
        u=signed_in.id,
    )
    assert ("user.update", "scim") in [tuple(r) for r in audit]
