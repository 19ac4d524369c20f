"""Webhook events of SCIM provisioning (docs/webhooks.md "Events"): a provisioning client's
writes announce the same events as the admin API's, with ``via: "scim"``; a refused write
announces nothing."""

from __future__ import annotations

import pytest

from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.scim.support import PATCH_OP, machine_token, new_user_body, scim_http
from tests.integration.webhook_events.support import assert_no_secret, one, types_about

pytestmark = pytest.mark.integration


def test_provisioning_announces_with_via_scim(stack: Stack, admin_api: AdminApi) -> None:
    token = machine_token(stack, admin_api)
    body = new_user_body()
    with scim_http(stack, token) as scim:
        created = scim.post("/Users", json=body)
        assert created.status_code == 201, created.text
        person = created.json()["id"]
        again = scim.post("/Users", json={**body, "externalId": "x"})  # the userName is taken
        assert again.status_code == 409, again.text
        off = {"op": "replace", "path": "active", "value": False}
        patch = {"schemas": [PATCH_OP], "Operations": [off]}
        deactivated = scim.patch(f"/Users/{person}", json=patch)
        assert deactivated.status_code == 200, deactivated.text
    made = one(stack, person, "user.created")
    assert made["via"] == "scim" and made["user_id"] == person and made["actor"]
    disabled = one(stack, person, "user.disabled")
    assert (disabled["via"], disabled["sessions_ended"]) == ("scim", 0)
    assert types_about(stack, person) == ["user.created", "user.disabled"]
    assert_no_secret(stack, person, body["emails"][0]["value"], token)
