"""``GET /admin/clients`` (paging) and ``GET /admin/clients/{client_id}``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_clients.support import (
    READ,
    create,
)

pytestmark = pytest.mark.integration


def test_list_with_limit_one_walks_every_client_once(admin_api: AdminApi, stack: Stack) -> None:
    for _ in range(3):
        create(admin_api)
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 1}
        if cursor:
            params["cursor"] = cursor
        response = admin_api.get("/admin/clients", params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        assert len(page["items"]) <= 1
        assert all("client_secret" not in item for item in page["items"])
        seen += [item["client_id"] for item in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    stored = query(stack, "SELECT client_id FROM clients ORDER BY client_id")
    assert seen == [r["client_id"] for r in stored]  # each once, in client_id order
    assert "console" in seen


def test_list_default_page_shape(admin_api: AdminApi) -> None:
    page = admin_api.get("/admin/clients").json()
    assert set(page) == {"items", "nextCursor"}
    # The console is on some page: other tests of the session add clients before it.
    items = list(page["items"])
    while page["nextCursor"] is not None and not any(i["client_id"] == "console" for i in items):
        page = admin_api.get("/admin/clients", params={"cursor": page["nextCursor"]}).json()
        items += page["items"]
    console = next(item for item in items if item["client_id"] == "console")
    assert console["type"] == "public"
    assert "openid" in console["scopes"] and READ in console["scopes"]


def test_list_is_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/clients", READ)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"cursor": "bm90LWEtY3Vyc29y"}, "cursor"),
    ],
)
def test_list_rejects_bad_paging(admin_api: AdminApi, params: dict[str, Any], field: str) -> None:
    assert_problem(admin_api.get("/admin/clients", params=params), 422, field=field)


def test_get_client(admin_api: AdminApi) -> None:
    created = create(admin_api)
    admin_api.put(f"/admin/clients/{created['client_id']}/scopes", json={"scopes": ["openid"]})
    response = admin_api.get(f"/admin/clients/{created['client_id']}")
    assert response.status_code == 200, response.text
    read = response.json()
    expected = {k: v for k, v in created.items() if k not in ("client_secret", "updatedAt")}
    assert {k: v for k, v in read.items() if k != "updatedAt"} == {**expected, "scopes": ["openid"]}


@pytest.mark.parametrize("client_id", ["no-such-client", "%20", "x" * 300])
def test_get_unknown_client_is_404(admin_api: AdminApi, client_id: str) -> None:
    assert_problem(admin_api.get(f"/admin/clients/{client_id}"), 404)


def test_get_is_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/clients/console", READ)
