"""``PUT /admin/clients/{client_id}/scopes``: the client's allowed scopes replaced as a set."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_clients.support import (
    UNKNOWN,
    WRITE,
    create,
)

pytestmark = pytest.mark.integration


def test_put_scopes_replaces_the_set(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}/scopes"
    first = admin_api.put(path, json={"scopes": ["openid", "email", "openid"]})
    assert first.status_code == 200, first.text
    assert first.json()["scopes"] == ["email", "openid"]
    second = admin_api.put(path, json={"scopes": ["profile"]})
    assert second.json()["scopes"] == ["profile"]
    stored = query(
        stack,
        "SELECT s.value FROM client_scopes cs JOIN scopes s ON s.id = cs.scope_id "
        "JOIN clients c ON c.id = cs.client_pk WHERE c.client_id = $1",
        created["client_id"],
    )
    assert [r["value"] for r in stored] == ["profile"]
    assert admin_api.put(path, json={"scopes": []}).json()["scopes"] == []
    actions = [r["action"] for r in admin_api.audit_rows(created["client_id"])]
    assert actions.count("client.set_scopes") == 3


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"scopes": ["openid", "no:such:scope"]}, "scopes[1]"),
        ({"scopes": "openid"}, "scopes"),
        ({}, "scopes"),
        ({"scopes": [], "extra": 1}, "extra"),
    ],
)
def test_put_scopes_rejects_bad_input(
    admin_api: AdminApi, stack: Stack, payload: dict[str, Any], field: str
) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}/scopes"
    admin_api.put(path, json={"scopes": ["email"]})
    assert_problem(admin_api.put(path, json=payload), 422, field=field)
    assert admin_api.get(f"/admin/clients/{created['client_id']}").json()["scopes"] == ["email"]


def test_put_scopes_unknown_client_is_404(admin_api: AdminApi) -> None:
    assert_problem(admin_api.put(f"{UNKNOWN}/scopes", json={"scopes": ["openid"]}), 404)


def test_put_scopes_is_guarded(admin_api: AdminApi) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}/scopes"
    assert_guarded(admin_api, "PUT", path, WRITE, json={"scopes": ["openid"]})
