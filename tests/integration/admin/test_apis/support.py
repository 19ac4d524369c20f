"""Helpers shared by the ``/admin/apis`` tests: new APIs and scopes, paging walks."""

from __future__ import annotations

import uuid
from typing import Any

from idp_common.protocol.constants import (
    IDP_API_NAME,
    SCOPE_IDP_APIS_READ,
    SCOPE_IDP_APIS_WRITE,
)
from tests.harness.records import query
from tests.integration.admin.contract import (
    AdminApi,
)

READ, WRITE = SCOPE_IDP_APIS_READ, SCOPE_IDP_APIS_WRITE
MALFORMED_ID = "not-a-uuid"


def unique_name() -> str:
    return f"t{uuid.uuid4().hex[:12]}"


def new_api(admin_api: AdminApi, name: str | None = None) -> dict[str, Any]:
    name = name or unique_name()
    resp = admin_api.post("/admin/apis", json={"name": name, "audience": f"https://{name}.test"})
    assert resp.status_code == 201, resp.text
    body: dict[str, Any] = resp.json()
    return body


def new_scope(admin_api: AdminApi, api: dict[str, Any], action: str = "read") -> dict[str, Any]:
    value = f"{api['name']}:things:{action}"
    resp = admin_api.post(
        f"/admin/apis/{api['id']}/scopes", json={"value": value, "description": "Read things"}
    )
    assert resp.status_code == 201, resp.text
    body: dict[str, Any] = resp.json()
    return body


def walk(admin_api: AdminApi, path: str) -> list[dict[str, Any]]:
    """Every item of a list, one per page, following ``nextCursor``."""
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 1}
        if cursor:
            params["cursor"] = cursor
        resp = admin_api.get(path, params=params)
        assert resp.status_code == 200, resp.text
        page = resp.json()
        assert len(page["items"]) <= 1
        items += page["items"]
        cursor = page["nextCursor"]
        if cursor is None:
            return items


def provider_api(admin_api: AdminApi) -> dict[str, Any]:
    rows = query(admin_api.stack, "SELECT id FROM apis WHERE name = $1", IDP_API_NAME)
    resp = admin_api.get(f"/admin/apis/{rows[0]['id']}")
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body
