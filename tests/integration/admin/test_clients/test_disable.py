"""``disabled`` of ``/admin/clients``: set at creation or by ``PATCH``, shown in every read,
audited as ``client.update`` with ``detail.disabled``, announced to the token service at
once (the ``clients`` change stamp), and refused for the console's own client."""

from __future__ import annotations

import json

import httpx
import pytest
from redis.asyncio import Redis

from idp_common.protocol.constants import SCOPE_IDP_USERS_READ
from idp_common.state.change_stamp import CLIENTS, stamp_key
from tests.harness import infra
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_problem, fresh_address
from tests.integration.admin.test_clients.support import (
    body,
    client_credentials,
    client_row,
    create,
    machine_client,
)

pytestmark = pytest.mark.integration


def clients_stamp(stack: Stack) -> int:
    """The ``clients`` change stamp the token workers compare before trusting their cache."""

    async def read() -> int:
        redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
        try:
            value = await redis.get(stamp_key(stack.env["SVC_REDIS_PREFIX"], CLIENTS))
        finally:
            await redis.aclose()
        return int(value or 0)

    return infra.run(read())


def detail_of(row: dict[str, object]) -> dict[str, object]:
    detail: dict[str, object] = json.loads(str(row["detail"]))
    return detail


def listed(api: AdminApi) -> dict[str, object]:
    """``disabled`` of every client, as the list shows it (every page)."""
    found: dict[str, object] = {}
    cursor = None
    while True:
        params = {"limit": 200, **({"cursor": cursor} if cursor else {})}
        page = api.get("/admin/clients", params=params).json()
        found.update({c["client_id"]: c["disabled"] for c in page["items"]})
        cursor = page["nextCursor"]
        if not cursor:
            return found


def test_a_client_is_enabled_unless_created_disabled(admin_api: AdminApi, stack: Stack) -> None:
    enabled = create(admin_api)
    assert enabled["disabled"] is False
    assert admin_api.get(f"/admin/clients/{enabled['client_id']}").json()["disabled"] is False

    disabled = create(admin_api, disabled=True)
    client_id = disabled["client_id"]
    assert disabled["disabled"] is True
    assert admin_api.get(f"/admin/clients/{client_id}").json()["disabled"] is True
    row = client_row(stack, client_id)
    assert row is not None and row["disabled"] is True
    assert listed(admin_api)[client_id] is True
    assert listed(admin_api)[enabled["client_id"]] is False
    (created_row,) = admin_api.audit_rows(client_id)
    assert created_row["action"] == "client.create"
    assert detail_of(created_row) == {"type": "confidential", "disabled": True}


def test_disabling_stops_the_client_at_once_and_enabling_restores_it(
    admin_api: AdminApi, stack: Stack, http: httpx.Client
) -> None:
    created = machine_client(admin_api, stack)
    client_id, secret = created["client_id"], created["client_secret"]
    path = f"/admin/clients/{client_id}"
    assert client_credentials(http, client_id, secret).status_code == 200  # now cached
    before = clients_stamp(stack)

    response = admin_api.patch(path, json={"disabled": True})
    assert response.status_code == 200, response.text
    assert response.json()["disabled"] is True
    assert clients_stamp(stack) > before
    row = client_row(stack, client_id)
    assert row is not None and row["disabled"] is True
    refused = client_credentials(http, client_id, secret)
    assert refused.status_code == 401, refused.text
    assert refused.json()["error"] == "invalid_client"

    stamp = clients_stamp(stack)
    response = admin_api.patch(path, json={"disabled": False})
    assert response.status_code == 200, response.text
    assert response.json()["disabled"] is False
    assert clients_stamp(stack) > stamp
    granted = client_credentials(http, client_id, secret)
    assert granted.status_code == 200, granted.text

    updates = [r for r in admin_api.audit_rows(client_id) if r["action"] == "client.update"]
    assert [detail_of(r) for r in updates] == [
        {"fields": ["disabled"], "disabled": True},
        {"fields": ["disabled"], "disabled": False},
    ]
    assert all(r["status_code"] == 200 for r in updates)


def test_a_disabled_clients_token_stops_at_the_admin_api_until_enabled_again(
    admin_api: AdminApi, stack: Stack, http: httpx.Client
) -> None:
    created = machine_client(admin_api, stack, SCOPE_IDP_USERS_READ)
    client_id, path = created["client_id"], f"/admin/clients/{created['client_id']}"
    issued = client_credentials(http, client_id, created["client_secret"])
    assert issued.status_code == 200, issued.text
    token = issued.json()["access_token"]
    bearer = {"Authorization": f"Bearer {token}", "X-Forwarded-For": fresh_address()}
    users = stack.service_url("admin") + "/admin/users"
    assert httpx.get(users, headers=bearer).status_code == 200

    assert admin_api.patch(path, json={"disabled": True}).status_code == 200
    refused = httpx.get(users, headers=bearer)
    assert refused.status_code == 401, refused.text
    assert 'error="invalid_token"' in refused.headers["www-authenticate"]

    assert admin_api.patch(path, json={"disabled": False}).status_code == 200
    assert httpx.get(users, headers=bearer).status_code == 200


def test_a_patch_that_leaves_disabled_alone_keeps_it(admin_api: AdminApi) -> None:
    created = create(admin_api, disabled=True)
    path = f"/admin/clients/{created['client_id']}"
    response = admin_api.patch(path, json={"name": "Orders (renamed)", "disabled": True})
    assert response.status_code == 200, response.text
    assert response.json()["disabled"] is True
    last = admin_api.audit_rows(created["client_id"])[-1]
    assert detail_of(last) == {"fields": ["name"]}  # no change of `disabled`, no flag


def test_disabled_must_be_a_boolean(admin_api: AdminApi) -> None:
    created = create(admin_api)
    response = admin_api.patch(f"/admin/clients/{created['client_id']}", json={"disabled": "yes"})
    assert_problem(response, 422, field="disabled")
    refused = admin_api.post("/admin/clients", json=body(disabled="yes"))
    assert_problem(refused, 422, field="disabled")


def test_the_console_client_cannot_be_disabled(admin_api: AdminApi, stack: Stack) -> None:
    response = admin_api.patch("/admin/clients/console", json={"disabled": True})
    assert_problem(response, 422, field="disabled")
    problem = response.json()
    assert problem["code"] == "admin.client_protected"
    (error,) = problem["errors"]
    assert "lock every administrator out" in error["message"]
    assert "lock every administrator out" in problem["detail"]
    row = client_row(stack, "console")
    assert row is not None and row["disabled"] is False
    refused = admin_api.audit_rows("console")[-1]
    assert (refused["action"], refused["status_code"]) == ("PATCH /admin/clients/{client_id}", 422)
    # Saying it stays enabled is no change, and allowed.
    kept = admin_api.patch("/admin/clients/console", json={"disabled": False})
    assert kept.status_code == 200, kept.text
    assert kept.json()["disabled"] is False
