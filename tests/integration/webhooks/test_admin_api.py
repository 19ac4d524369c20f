"""``/admin/webhooks`` (issue #27, docs/admin-api.md "Webhooks"): endpoints with a secret
shown once, the checks of their URL and event types, the permissions, the audit trail."""

from __future__ import annotations

import base64
import json
import re

import pytest

from idp_common.events.webhook_events import WEBHOOK_EVENT_TYPES
from idp_common.protocol.constants import SCOPE_IDP_WEBHOOKS_READ, SCOPE_IDP_WEBHOOKS_WRITE
from tests.harness.rows import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.webhooks.support import WebhookAdmin, register

pytestmark = pytest.mark.e2e

BASE = "/admin/webhooks"
URL = "https://hooks.example.com/in"
ENDPOINT_KEYS = {"id", "url", "description", "eventTypes", "enabled", "createdAt", "updatedAt"}


def test_create_shows_the_secret_once(stack: Stack, admin_api: AdminApi) -> None:
    created = register(admin_api, URL, ["user.created", "signin.failed"], description="CRM")
    assert set(created) == ENDPOINT_KEYS | {"secret"}
    secret = created["secret"]
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]+=*", secret)
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    assert created["enabled"] is True
    assert created["eventTypes"] == ["user.created", "signin.failed"]
    read = admin_api.get(f"{BASE}/{created['id']}")
    assert read.status_code == 200
    assert set(read.json()) == ENDPOINT_KEYS
    listed = admin_api.get(BASE, params={"limit": 200}).json()
    assert all("secret" not in item for item in listed["items"])
    assert created["id"] in {item["id"] for item in listed["items"]}
    stored = query(stack, "SELECT * FROM webhook_endpoints WHERE id = $1", created["id"])[0]
    raw = base64.b64decode(secret.removeprefix("whsec_"))
    assert secret.encode() not in bytes(stored["secret_sealed"])  # type: ignore[arg-type]
    assert raw not in bytes(stored["secret_sealed"])  # type: ignore[arg-type]
    (audit,) = admin_api.audit_rows(created["id"])
    assert audit["action"] == "webhook.create" and audit["status_code"] == 201
    assert secret not in str(audit["detail"])


def test_list_get_patch_delete(stack: Stack, admin_api: AdminApi) -> None:
    first = register(admin_api, URL + "/1", ["user.created"])
    second = register(admin_api, URL + "/2", ["user.deleted"])
    page = admin_api.get(BASE, params={"limit": 1}).json()
    assert len(page["items"]) == 1 and page["nextCursor"]
    seen = [page["items"][0]["id"]]
    while page["nextCursor"]:
        page = admin_api.get(BASE, params={"limit": 1, "cursor": page["nextCursor"]}).json()
        seen += [item["id"] for item in page["items"]]
    assert seen.index(first["id"]) < seen.index(second["id"]) and len(seen) == len(set(seen))

    changed = admin_api.patch(
        f"{BASE}/{first['id']}",
        json={"enabled": False, "eventTypes": ["session.ended"], "description": "off"},
    )
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert (body["enabled"], body["eventTypes"], body["description"], body["url"]) == (
        False,
        ["session.ended"],
        "off",
        URL + "/1",
    )
    last = admin_api.audit_rows(first["id"])[-1]
    assert last["action"] == "webhook.update"
    fields = json.loads(str(last["detail"]))["fields"]
    assert set(fields) == {"enabled", "eventTypes", "description"}

    assert admin_api.delete(f"{BASE}/{first['id']}").status_code == 204
    assert_problem(admin_api.get(f"{BASE}/{first['id']}"), 404)
    assert_problem(admin_api.delete(f"{BASE}/{first['id']}"), 404)
    # the delete, then the refused second delete (recorded by the app's after_exception)
    actions = [r["action"] for r in admin_api.audit_rows(first["id"])]
    assert actions[-2:] == ["webhook.delete", "DELETE /admin/webhooks/{endpoint_id}"]
    for path in (f"{BASE}/{MISSING_ID}", f"{BASE}/not-a-uuid", f"{BASE}/{MISSING_ID}/deliveries"):
        assert_problem(admin_api.get(path), 404)


def test_rotate_secret(admin_api: AdminApi) -> None:
    created = register(admin_api, URL, ["client.created"])
    rotated = admin_api.post(f"{BASE}/{created['id']}/rotate-secret")
    assert rotated.status_code == 200, rotated.text
    assert set(rotated.json()) == {"secret"}
    assert rotated.json()["secret"].startswith("whsec_")
    assert rotated.json()["secret"] != created["secret"]
    assert admin_api.audit_rows(created["id"])[-1]["action"] == "webhook.rotate_secret"
    assert "secret" not in admin_api.get(f"{BASE}/{created['id']}").json()
    assert_problem(admin_api.post(f"{BASE}/{MISSING_ID}/rotate-secret"), 404)


def test_event_types(admin_api: AdminApi) -> None:
    answer = admin_api.get(f"{BASE}/event-types")
    assert answer.status_code == 200
    assert answer.json() == {"items": list(WEBHOOK_EVENT_TYPES)}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "http://hooks.example.com/", "eventTypes": ["user.created"]}, "url"),
        ({"url": "https://u:p@hooks.example.com/", "eventTypes": ["user.created"]}, "url"),
        ({"url": "https://hooks.example.com/#x", "eventTypes": ["user.created"]}, "url"),
        ({"url": "https://x.example/" + "a" * 2000, "eventTypes": ["user.created"]}, "url"),
        ({"url": "not a url", "eventTypes": ["user.created"]}, "url"),
        ({"url": URL, "eventTypes": []}, "eventTypes"),
        ({"url": URL, "eventTypes": ["user.created", "user.exploded"]}, "eventTypes[1]"),
    ],
)
def test_invalid_fields_are_named(admin_api: AdminApi, body: dict[str, object], field: str) -> None:
    assert_problem(admin_api.post(BASE, json=body), 422, field=field)


def test_patch_checks_the_same_rules(admin_api: AdminApi) -> None:
    created = register(admin_api, URL, ["user.created"])
    path = f"{BASE}/{created['id']}"
    assert_problem(admin_api.patch(path, json={"url": "http://x.example/"}), 422, field="url")
    assert_problem(admin_api.patch(path, json={"eventTypes": ["nope"]}), 422, field="eventTypes[0]")
    assert_problem(admin_api.patch(path, json={"secret": "whsec_AAAA"}), 422, field="secret")
    assert admin_api.get(path).json()["url"] == URL


def test_private_targets_are_refused_unless_allowed(stack: Stack) -> None:
    """An admin service with the default (SVC_WEBHOOK_ALLOW_PRIVATE off) refuses loopback,
    private and link-local hosts, naming ``url``; the suite's own admin accepts them."""
    with stack.extra_service("admin", {"SVC_WEBHOOK_ALLOW_PRIVATE": "false"}) as admin_url:
        strict = WebhookAdmin(stack, base_url=admin_url)
        try:
            for url in (
                "http://127.0.0.1:9/hooks",
                "https://127.0.0.1/hooks",
                "https://10.0.0.5/hooks",
                "https://169.254.169.254/latest/meta-data",
                "https://[::1]/hooks",
                "https://localhost/hooks",
            ):
                refused = strict.post(BASE, json={"url": url, "eventTypes": ["user.created"]})
                assert_problem(refused, 422, field="url")
                assert "SVC_WEBHOOK_ALLOW_PRIVATE" in refused.json()["errors"][0]["message"]
            created = register(strict, URL, ["user.created"])
            assert_problem(
                strict.patch(f"{BASE}/{created['id']}", json={"url": "https://192.168.1.1/"}),
                422,
                field="url",
            )
        finally:
            strict.close()


@pytest.mark.parametrize(
    ("method", "suffix", "permission"),
    [
        ("GET", "", SCOPE_IDP_WEBHOOKS_READ),
        ("GET", "/event-types", SCOPE_IDP_WEBHOOKS_READ),
        ("GET", "/{id}", SCOPE_IDP_WEBHOOKS_READ),
        ("GET", "/{id}/deliveries", SCOPE_IDP_WEBHOOKS_READ),
        ("POST", "", SCOPE_IDP_WEBHOOKS_WRITE),
        ("PATCH", "/{id}", SCOPE_IDP_WEBHOOKS_WRITE),
        ("DELETE", "/{id}", SCOPE_IDP_WEBHOOKS_WRITE),
        ("POST", "/{id}/rotate-secret", SCOPE_IDP_WEBHOOKS_WRITE),
        ("POST", f"/{{id}}/deliveries/{MISSING_ID}/resend", SCOPE_IDP_WEBHOOKS_WRITE),
    ],
)
def test_each_route_needs_its_permission(
    admin_api: AdminApi, method: str, suffix: str, permission: str
) -> None:
    created = register(admin_api, URL, ["user.created"])
    body = {"url": URL, "eventTypes": ["user.created"]} if method in ("POST", "PATCH") else None
    assert_guarded(admin_api, method, BASE + suffix.format(id=created["id"]), permission, json=body)
    assert admin_api.get(f"{BASE}/{created['id']}").status_code == 200  # nothing was done


def test_resend_of_an_unknown_delivery(admin_api: AdminApi) -> None:
    created = register(admin_api, URL, ["user.created"])
    assert_problem(admin_api.post(f"{BASE}/{created['id']}/deliveries/{MISSING_ID}/resend"), 404)
    assert_problem(admin_api.post(f"{BASE}/{created['id']}/deliveries/xyz/resend"), 404)
    listed = admin_api.get(f"{BASE}/{created['id']}/deliveries", params={"status": "nope"})
    assert listed.status_code in (400, 422)
