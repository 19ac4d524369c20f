"""``GET /entity/profile/schema``: readable fields in display order, group fields for members."""

from __future__ import annotations

import pytest

from tests.harness.records import TestUser, create_user
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import (
    EntityApi,
    assert_problem,
)
from tests.integration.entity.test_profile.support import (
    PROFILE,
    SCHEMA,
    field,
    new_group,
    new_key,
    schema_keys,
    stored,
)

pytestmark = pytest.mark.integration


def test_schema_lists_readable_fields_in_display_order(
    admin: AdminApi, entity_api: EntityApi
) -> None:
    later = field(admin, displayOrder=900_002, userWritable=False)
    first = field(
        admin,
        displayOrder=900_001,
        dataType="enum",
        enumValues=["S", "M"],
        required=True,
        claimName=new_key("claim"),
        claimScope="profile",
    )
    hidden = field(admin, displayOrder=900_000, userReadable=False)
    resp = entity_api.get(SCHEMA)
    assert resp.status_code == 200, resp.text
    items = {item["key"]: item for item in resp.json()["items"]}
    keys = [item["key"] for item in resp.json()["items"]]
    assert hidden not in items
    assert keys.index(first) < keys.index(later)
    orders = [item["displayOrder"] for item in resp.json()["items"]]
    assert orders == sorted(orders)
    assert items[first] == {
        "key": first,
        "label": "A field",
        "dataType": "enum",
        "required": True,
        "unique": False,
        "userWritable": True,
        "validators": {},
        "enumValues": ["S", "M"],
        "displayOrder": 900_001,
    }
    assert items[later]["userWritable"] is False


def test_a_group_field_applies_only_to_members(
    stack: Stack, admin: AdminApi, person: TestUser, entity_api: EntityApi
) -> None:
    scoped = field(admin, groupId=new_group(stack, person))
    assert scoped in schema_keys(entity_api)
    resp = entity_api.patch(PROFILE, json={scoped: "member"})
    assert resp.status_code == 200, resp.text
    assert entity_api.get(PROFILE).json()["fields"][scoped] == "member"

    outsider = EntityApi(stack, create_user(stack))
    try:
        assert scoped not in schema_keys(outsider)
        assert scoped not in outsider.get(PROFILE).json()["fields"]
        assert_problem(outsider.patch(PROFILE, json={scoped: "no"}), 422, field=scoped)
        assert stored(stack, outsider.person) == {}
    finally:
        outsider.close()
