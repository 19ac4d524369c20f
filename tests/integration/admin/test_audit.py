"""``GET /admin/audit``: newest first, filtered by action, actor, target and time range,
paged with ``limit``/``cursor`` (docs/design.md "Lists"); writes of the admin API appear in it
with actor, target, caller address and status."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.integration.admin.contract import AdminApi, assert_guarded, assert_problem

pytestmark = pytest.mark.integration


def create_api(api: AdminApi, address: str) -> str:
    name = f"audit{uuid.uuid4().hex[:10]}"
    response = api.post(
        "/admin/apis", json={"name": name, "audience": f"urn:{name}"}, address=address
    )
    assert response.status_code == 201, response.text
    api_id: str = response.json()["id"]
    return api_id


def events(api: AdminApi, **params: Any) -> list[dict[str, Any]]:
    response = api.get("/admin/audit", params=params)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


def test_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/audit", "idp:audit:read")


def test_a_write_is_listed_with_actor_target_address_and_status(admin_api: AdminApi) -> None:
    api_id = create_api(admin_api, "203.0.113.77")
    (row,) = events(admin_api, target=api_id)
    assert row["action"] == "api.create"
    assert row["actor"] == admin_api.actor
    assert row["target"] == api_id
    assert row["ip"] == "203.0.113.77"
    assert row["status_code"] == 201
    assert set(row) >= {"id", "occurred_at", "detail"}


def test_filters_by_action_actor_target_and_time(admin_api: AdminApi) -> None:
    first = create_api(admin_api, "203.0.113.1")
    time.sleep(0.05)
    middle = datetime.now(UTC)
    time.sleep(0.05)
    second = create_api(admin_api, "203.0.113.2")
    deleted = admin_api.delete(f"/admin/apis/{second}")
    assert deleted.status_code == 204

    mine = events(admin_api, actor=admin_api.actor)
    assert [e["target"] for e in mine] == [second, second, first]  # newest first
    assert [e["action"] for e in mine] == ["api.delete", "api.create", "api.create"]
    assert [e["target"] for e in events(admin_api, actor=admin_api.actor, action="api.create")] == [
        second,
        first,
    ]
    assert [e["action"] for e in events(admin_api, target=second)] == ["api.delete", "api.create"]
    since = events(admin_api, actor=admin_api.actor, since=middle.isoformat())
    assert {e["target"] for e in since} == {second}
    until = events(admin_api, actor=admin_api.actor, until=middle.isoformat())
    assert [e["target"] for e in until] == [first]
    later = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    assert events(admin_api, actor=admin_api.actor, since=later) == []


def test_pages_walk_every_event_once(admin_api: AdminApi) -> None:
    targets = [create_api(admin_api, "203.0.113.3") for _ in range(3)]
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"actor": admin_api.actor, "limit": 1}
        if cursor:
            params["cursor"] = cursor
        body = admin_api.get("/admin/audit", params=params).json()
        seen += [e["target"] for e in body["items"]]
        cursor = body["nextCursor"]
        if not cursor:
            break
    assert seen == list(reversed(targets))


def test_bad_parameters_are_422_naming_them(admin_api: AdminApi) -> None:
    assert_problem(admin_api.get("/admin/audit", params={"since": "yesterday"}), 422, field="since")
    assert_problem(admin_api.get("/admin/audit", params={"limit": 0}), 422, field="limit")
    assert_problem(admin_api.get("/admin/audit", params={"cursor": "x"}), 422, field="cursor")
