"""``GET /admin/profile-fields`` (order, paging, presets) and one field."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_PROFILE_FIELDS_READ as READ,
)
from tests.harness.records import query
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_profile_fields.support import (
    BASE,
    create,
    new_key,
)

pytestmark = pytest.mark.integration


def test_list_by_display_order_then_key_paged(admin_api: AdminApi) -> None:
    order = 10_000 + uuid.uuid4().int % 1_000_000
    keys = sorted(new_key("z") for _ in range(3))
    for key in reversed(keys):
        create(admin_api, key=key, displayOrder=order)
    seen: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = admin_api.get(BASE, params=params)
        assert page.status_code == 200, page.text
        assert len(page.json()["items"]) <= 2
        seen += page.json()["items"]
        cursor = page.json()["nextCursor"]
        if cursor is None:
            break
    pairs = [(f["displayOrder"], f["key"]) for f in seen]
    assert pairs == sorted(pairs)
    assert [f["key"] for f in seen if f["displayOrder"] == order] == keys
    assert_problem(admin_api.get(BASE, params={"limit": 0}), 422, field="limit")
    assert_problem(admin_api.get(BASE, params={"cursor": "nonsense"}), 422, field="cursor")
    assert_guarded(admin_api, "GET", BASE, READ)


def test_presets_are_templates_for_the_creation_body(admin_api: AdminApi) -> None:
    before = query(admin_api.stack, "SELECT count(*) AS n FROM profile_fields")
    resp = admin_api.get(f"{BASE}/presets")
    assert resp.status_code == 200, resp.text
    presets = resp.json()
    by_key = {p["key"]: p for p in presets}
    for standard in (
        "given_name",
        "family_name",
        "birthdate",
        "phone_number",
        "locale",
        "zoneinfo",
        "website",
    ):
        assert by_key[standard]["claimName"] == standard
        assert by_key[standard]["claimScope"] == "profile"
    assert by_key["birthdate"]["dataType"] == "date"
    assert by_key["phone_number"]["dataType"] == "phone"
    assert by_key["website"]["dataType"] == "url"
    assert by_key["employee_number"]["unique"] is True
    assert {"department", "job_title", "cost_centre"} <= set(by_key)
    assert query(admin_api.stack, "SELECT count(*) AS n FROM profile_fields") == before
    suffix = uuid.uuid4().hex[:6]
    for preset in presets:  # each posts back as it is (names made unique for this run)
        preset["key"] = f"{preset['key']}_{suffix}"
        if preset["claimName"]:
            preset["claimName"] = f"{preset['claimName']}_{suffix}"
        created = admin_api.post(BASE, json=preset)
        assert created.status_code == 201, created.text
        assert admin_api.delete(f"{BASE}/{created.json()['id']}").status_code == 204
    assert_guarded(admin_api, "GET", f"{BASE}/presets", READ)


def test_get_one(admin_api: AdminApi) -> None:
    field = create(admin_api)
    resp = admin_api.get(f"{BASE}/{field['id']}")
    assert resp.status_code == 200
    assert resp.json() == field
    assert_problem(admin_api.get(f"{BASE}/{MISSING_ID}"), 404)
    assert_problem(admin_api.get(f"{BASE}/not-a-uuid"), 404)
    assert_guarded(admin_api, "GET", f"{BASE}/{field['id']}", READ)
