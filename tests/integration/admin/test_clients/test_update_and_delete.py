"""``PATCH`` and ``DELETE /admin/clients/{client_id}``: what changes, what a deletion takes."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.harness import records
from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.admin.contract import AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_clients.support import (
    UNKNOWN,
    WRITE,
    client_row,
    create,
)

pytestmark = pytest.mark.integration


def test_patch_changes_only_the_given_members(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}"
    response = admin_api.patch(
        path,
        json={
            "name": "Orders (new)",
            "redirectUris": ["https://orders.example/cb2"],
            "backchannelLogoutUri": None,
            "skipConsent": True,
        },
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated["name"] == "Orders (new)"
    assert updated["redirectUris"] == ["https://orders.example/cb2"]
    assert updated["backchannelLogoutUri"] is None
    assert updated["skipConsent"] is True
    assert updated["postLogoutRedirectUris"] == created["postLogoutRedirectUris"]
    assert updated["grantTypes"] == created["grantTypes"]
    assert updated["updatedAt"] >= created["updatedAt"]
    row = client_row(stack, created["client_id"])
    assert row is not None
    assert row["backchannel_logout_uri"] is None and row["skip_consent"] is True
    assert row["redirect_uris"] == ["https://orders.example/cb2"]
    audit_row = admin_api.audit_rows(created["client_id"])[-1]
    assert audit_row["action"] == "client.update"
    assert json.loads(str(audit_row["detail"]))["fields"] == [
        "name",
        "redirectUris",
        "backchannelLogoutUri",
        "skipConsent",
    ]


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"type": "public"}, "type"),
        ({"client_id": "mine"}, "client_id"),
        ({"redirectUris": ["http://evil.example/cb"]}, "redirectUris[0]"),
        ({"redirectUris": []}, "redirectUris"),
        ({"postLogoutRedirectUris": ["https://a.example/#top"]}, "postLogoutRedirectUris[0]"),
        ({"backchannelLogoutUri": "not a uri"}, "backchannelLogoutUri"),
        ({"grantTypes": ["authorization_code", "password"]}, "grantTypes[1]"),
        ({"name": ""}, "name"),
        ({"skipConsent": "yes"}, "skipConsent"),
    ],
)
def test_patch_rejects_bad_input_naming_the_field(
    admin_api: AdminApi, patch: dict[str, Any], field: str
) -> None:
    created = create(admin_api)
    response = admin_api.patch(f"/admin/clients/{created['client_id']}", json=patch)
    assert_problem(response, 422, field=field)
    unchanged = admin_api.get(f"/admin/clients/{created['client_id']}").json()
    assert unchanged["updatedAt"] == created["updatedAt"]


def test_patch_public_client_cannot_gain_client_credentials(admin_api: AdminApi) -> None:
    created = create(admin_api, type="public")
    response = admin_api.patch(
        f"/admin/clients/{created['client_id']}",
        json={"grantTypes": ["authorization_code", "client_credentials"]},
    )
    assert_problem(response, 422, field="grantTypes[1]")


def test_patch_unknown_client_is_404(admin_api: AdminApi) -> None:
    assert_problem(admin_api.patch(UNKNOWN, json={"name": "x"}), 404)


def test_patch_is_guarded(admin_api: AdminApi) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}"
    assert_guarded(admin_api, "PATCH", path, WRITE, json={"name": "x"})


def test_delete_takes_everything_issued_to_the_client(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api)
    client_id = created["client_id"]
    admin_api.put(f"/admin/clients/{client_id}/scopes", json={"scopes": ["openid", "email"]})
    pk = uuid.UUID(str(client_row(stack, client_id)["id"]))  # type: ignore[index]
    person = tf.create_person(stack)
    records.give_consent(stack, client_id, str(person.id), ["openid"])
    records.issue_session_refresh_token(stack, client_id, str(person.id), "sid-1")
    tf.create_code(stack, tf.AppClient(client_id, created["client_secret"], pk), person)
    tables = (
        "client_secrets",
        "client_scopes",
        "consents",
        "refresh_tokens",
        "authorization_codes",
    )
    for table in tables:
        rows = query(stack, f"SELECT 1 FROM {table} WHERE client_pk = $1", pk)  # noqa: S608
        assert rows, table

    response = admin_api.delete(f"/admin/clients/{client_id}")
    assert response.status_code == 204, response.text
    assert response.content == b""
    assert client_row(stack, client_id) is None
    for table in tables:
        assert query(stack, f"SELECT 1 FROM {table} WHERE client_pk = $1", pk) == [], table  # noqa: S608
    assert_problem(admin_api.get(f"/admin/clients/{client_id}"), 404)
    audit_row = admin_api.audit_rows(client_id)[-1]
    assert (audit_row["action"], audit_row["status_code"]) == ("client.delete", 204)


def test_console_client_cannot_be_deleted(admin_api: AdminApi, stack: Stack) -> None:
    assert_problem(admin_api.delete("/admin/clients/console"), 409)
    assert client_row(stack, "console") is not None


def test_delete_unknown_client_is_404(admin_api: AdminApi) -> None:
    assert_problem(admin_api.delete(UNKNOWN), 404)


def test_delete_is_guarded(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}"
    assert_guarded(admin_api, "DELETE", path, WRITE)
    assert client_row(stack, created["client_id"]) is not None
