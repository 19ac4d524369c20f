"""``allowedWebOrigins`` of ``/admin/clients`` (issue #27, docs/oauth/browser-apps.md): stored
as given, shown on every read, checked (a problem naming the field, 422), cleared by ``[]``."""

from __future__ import annotations

import json

import pytest

from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_problem
from tests.integration.admin.test_clients.support import body, client_row, create

pytestmark = pytest.mark.integration
SPA = {"type": "public", "grantTypes": ["authorization_code", "refresh_token"]}
ORIGINS = ["https://orders.example", "http://localhost:5173"]


def test_created_read_and_stored_as_given(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api, **SPA, allowedWebOrigins=ORIGINS)
    assert created["allowedWebOrigins"] == ORIGINS
    read = admin_api.get(f"/admin/clients/{created['client_id']}").json()
    assert read["allowedWebOrigins"] == ORIGINS
    row = client_row(stack, created["client_id"])
    assert row is not None and row["allowed_web_origins"] == ORIGINS
    listed = admin_api.get("/admin/clients", params={"limit": 200}).json()["items"]
    assert all(isinstance(item["allowedWebOrigins"], list) for item in listed)


def test_absent_is_an_empty_list(admin_api: AdminApi) -> None:
    assert create(admin_api)["allowedWebOrigins"] == []


@pytest.mark.parametrize(
    "origin",
    [
        "*",
        "null",
        "https://*.orders.example",
        "https://orders.example/",
        "https://orders.example/app",
        "https://Orders.example",
        "https://orders.example:443",
        "http://orders.example",
        "orders.example",
    ],
)
def test_anything_but_an_origin_is_refused_naming_the_field(
    admin_api: AdminApi, origin: str
) -> None:
    response = admin_api.post(
        "/admin/clients", json=body(**SPA, allowedWebOrigins=["https://ok.example", origin])
    )
    assert_problem(response, 422, field="allowedWebOrigins[1]")


def test_a_repeated_origin_is_refused(admin_api: AdminApi) -> None:
    response = admin_api.post(
        "/admin/clients", json=body(**SPA, allowedWebOrigins=[ORIGINS[0], ORIGINS[0]])
    )
    assert_problem(response, 422, field="allowedWebOrigins[1]")


def test_patch_sets_and_clears_and_is_audited(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api, **SPA)
    path = f"/admin/clients/{created['client_id']}"
    updated = admin_api.patch(path, json={"allowedWebOrigins": ORIGINS})
    assert updated.status_code == 200, updated.text
    assert updated.json()["allowedWebOrigins"] == ORIGINS
    audit_row = admin_api.audit_rows(created["client_id"])[-1]
    assert json.loads(str(audit_row["detail"]))["fields"] == ["allowedWebOrigins"]

    refused = admin_api.patch(path, json={"allowedWebOrigins": ["https://a.example/x"]})
    assert_problem(refused, 422, field="allowedWebOrigins[0]")
    row = client_row(stack, created["client_id"])
    assert row is not None and row["allowed_web_origins"] == ORIGINS  # nothing half-written

    cleared = admin_api.patch(path, json={"allowedWebOrigins": []})
    assert cleared.json()["allowedWebOrigins"] == []
