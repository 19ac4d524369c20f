"""Webhook delivery through the real stack (issue #27 acceptance 2): an event written to
the outbox reaches each subscribed endpoint, signed per Standard Webhooks (checked with the
`standardwebhooks` library), is retried with backoff after failures, exactly once more after
each, and gives up after the retry window; the delivery log shows it and "send again"
delivers it again.

The suite's stack retries after 0.5 s, 1 s, 2 s, 4 s, 4 s ... for 20 s
(tests/harness/stack.py).
"""

from __future__ import annotations

import json
import time

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.metrics.support import scrape, settle, total
from tests.integration.webhooks.support import (
    WebhookReceiver,
    delivery_rows,
    emit,
    register,
    verify,
    wait_for_status,
)

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery staple 27"
#: Longer than the longest retry delay of the suite's settings (4 s, plus 10 % jitter).
QUIET_SECONDS = 6.0


def test_delivery_is_signed_per_standard_webhooks(stack: Stack, admin_api: AdminApi) -> None:
    with WebhookReceiver() as receiver:
        endpoint = register(admin_api, receiver.url, ["user.created"])
        payload = emit(stack, "user.created", user_id="u-1", actor="a-1")
        (receipt,) = receiver.wait_for(1)
        assert verify(endpoint["secret"], receipt) == payload
        assert receipt.headers["webhook-id"] == payload["id"]
        assert receipt.headers["content-type"] == "application/json"
        assert abs(int(receipt.headers["webhook-timestamp"]) - time.time()) < 30
        assert json.loads(receipt.body) == payload
        assert endpoint["secret"].encode() not in receipt.body
        assert endpoint["secret"].removeprefix("whsec_").encode() not in receipt.body
        rows = wait_for_status(stack, endpoint["id"], "succeeded")
        assert [(r["attempts"], r["last_status_code"]) for r in rows] == [(1, 200)]


def test_a_wrong_secret_does_not_verify(stack: Stack, admin_api: AdminApi) -> None:
    """The check above can fail: another endpoint's secret is refused by the library."""
    with WebhookReceiver() as receiver:
        register(admin_api, receiver.url, ["user.updated"])
        other = register(admin_api, receiver.url + "/other", ["client.created"])
        emit(stack, "user.updated", user_id="u-2")
        (receipt,) = receiver.wait_for(1)
        with pytest.raises(Exception, match="signature"):
            verify(other["secret"], receipt)


def test_fails_twice_then_succeeds_gets_exactly_three(stack: Stack, admin_api: AdminApi) -> None:
    dispatcher = stack.service_url("logout-dispatcher")
    before = scrape(dispatcher)
    with WebhookReceiver(script=[500, 503, 200]) as receiver:
        endpoint = register(admin_api, receiver.url, ["user.disabled"])
        payload = emit(stack, "user.disabled", user_id="u-3", actor="a-3")
        receipts = receiver.wait_for(3)
        assert len(receipts) == 3
        rows = wait_for_status(stack, endpoint["id"], "succeeded")
        time.sleep(QUIET_SECONDS)  # a fourth attempt would have come by now
        receipts = receiver.snapshot()
        assert len(receipts) == 3
        assert {r.headers["webhook-id"] for r in receipts} == {payload["id"]}
        for receipt in receipts:
            assert verify(endpoint["secret"], receipt) == payload
        # Backoff: the second try comes after ~0.5 s, the third after ~1 s more.
        assert receipts[1].at - receipts[0].at >= 0.45
        assert receipts[2].at - receipts[1].at >= 0.95
        assert [(r["attempts"], r["last_status_code"]) for r in rows] == [(3, 200)]
        log = admin_api.get(f"/admin/webhooks/{endpoint['id']}/deliveries").json()["items"]
        assert [(d["eventId"], d["status"], d["attempts"]) for d in log] == [
            (payload["id"], "succeeded", 3)
        ]
        assert log[0]["deliveredAt"] is not None and log[0]["nextAttemptAt"] is None
        # Counted by outcome only: no endpoint, URL, event or secret in the metrics.
        failed = total(before, "idp_webhook_deliveries_total", status_class="5xx") + 2
        delivered = total(before, "idp_webhook_deliveries_total", status_class="2xx") + 1
        after = settle(
            dispatcher,
            lambda s: (
                total(s, "idp_webhook_deliveries_total", status_class="5xx") >= failed
                and total(s, "idp_webhook_deliveries_total", status_class="2xx") >= delivered
            ),
        )
        assert total(after, "idp_webhook_deliveries_total", status_class="5xx") >= failed
        assert total(after, "idp_webhook_deliveries_total", status_class="2xx") >= delivered
        text = httpx.get(dispatcher + "/metrics", timeout=15).text
        for named in (endpoint["secret"], endpoint["id"], payload["id"], receiver.url):
            assert named not in text


def test_gives_up_after_the_retry_window(stack: Stack, admin_api: AdminApi) -> None:
    """A receiver that always redirects: redirects are not followed, a 3xx is a failure,
    and once the window (20 s here) is over the delivery is failed, with no more tries."""
    with WebhookReceiver(script=[302]) as receiver:
        endpoint = register(admin_api, receiver.url, ["client.deleted"])
        emit(stack, "client.deleted", client_id="c-1")
        rows = wait_for_status(stack, endpoint["id"], "failed", timeout=60)
        assert rows[0]["status"] == "failed", rows
        attempts = int(str(rows[0]["attempts"]))
        assert attempts >= 5
        assert rows[0]["last_status_code"] == 302 and rows[0]["last_error"] == "http_302"
        time.sleep(QUIET_SECONDS)
        assert len(receiver.snapshot()) == attempts
        log = admin_api.get(
            f"/admin/webhooks/{endpoint['id']}/deliveries", params={"status": "failed"}
        ).json()
        assert log["items"][0]["status"] == "failed"
        assert log["items"][0]["lastStatusCode"] == 302


def test_only_subscribed_types_and_enabled_endpoints(stack: Stack, admin_api: AdminApi) -> None:
    with WebhookReceiver() as wanted, WebhookReceiver() as paused:
        endpoint = register(admin_api, wanted.url, ["consent.granted"])
        off = register(admin_api, paused.url, ["consent.granted"], enabled=False)
        emit(stack, "consent.withdrawn", user_id="u-4", client_id="c-4")  # nobody's type
        granted = emit(stack, "consent.granted", user_id="u-4", client_id="c-4")
        (receipt,) = wanted.wait_for(1)
        assert receipt.headers["webhook-id"] == granted["id"]
        time.sleep(1.0)
        assert len(wanted.snapshot()) == 1
        assert paused.snapshot() == []
        assert [r["event_id"] for r in delivery_rows(stack, endpoint["id"])] == [granted["id"]]
        assert delivery_rows(stack, off["id"]) == []  # disabled when the event came


def test_send_again_delivers_the_same_event_again(stack: Stack, admin_api: AdminApi) -> None:
    with WebhookReceiver() as receiver:
        endpoint = register(admin_api, receiver.url, ["user.password_changed"])
        payload = emit(stack, "user.password_changed", user_id="u-5")
        receiver.wait_for(1)
        wait_for_status(stack, endpoint["id"], "succeeded")
        base = f"/admin/webhooks/{endpoint['id']}/deliveries"
        (delivery,) = admin_api.get(base).json()["items"]
        again = admin_api.post(f"{base}/{delivery['id']}/resend")
        assert again.status_code == 202, again.text
        assert again.json()["status"] == "pending"
        assert again.json()["attempts"] == 0
        receipts = receiver.wait_for(2)
        assert len(receipts) == 2
        assert verify(endpoint["secret"], receipts[1]) == payload
        assert receipts[1].headers["webhook-id"] == payload["id"]
        rows = wait_for_status(stack, endpoint["id"], "succeeded")
        assert [(r["attempts"], r["status"]) for r in rows] == [(1, "succeeded")]
        audit = admin_api.audit_rows(endpoint["id"])
        assert [r["action"] for r in audit][-1] == "webhook.resend"


def test_a_rotated_secret_signs_the_next_delivery(stack: Stack, admin_api: AdminApi) -> None:
    with WebhookReceiver() as receiver:
        endpoint = register(admin_api, receiver.url, ["client.secret_rotated"])
        rotated = admin_api.post(f"/admin/webhooks/{endpoint['id']}/rotate-secret")
        assert rotated.status_code == 200, rotated.text
        emit(stack, "client.secret_rotated", client_id="c-6")
        (receipt,) = receiver.wait_for(1)
        verify(rotated.json()["secret"], receipt)
        with pytest.raises(Exception, match="signature"):
            verify(endpoint["secret"], receipt)


def test_an_admin_change_reaches_the_endpoint_end_to_end(stack: Stack, admin_api: AdminApi) -> None:
    """The whole chain: a person created through the admin API (its audit row's event in
    the change's transaction) → outbox → relay → fan-out → signed POST. A refused change
    (a taken email, 409) commits nothing, so nothing is sent for it."""
    with WebhookReceiver() as receiver:
        endpoint = register(admin_api, receiver.url, ["user.created"])
        email = f"hook-{time.time_ns()}@example.com"
        made = admin_api.post("/admin/users", json={"email": email, "password": PASSWORD})
        assert made.status_code == 201, made.text
        (receipt,) = receiver.wait_for(1)
        event = verify(endpoint["secret"], receipt)
        assert event["type"] == "user.created"
        assert event["data"]["user_id"] == made.json()["id"]
        assert event["data"]["actor"] == admin_api.actor
        assert PASSWORD not in receipt.body.decode() and email not in receipt.body.decode()
        taken = admin_api.post("/admin/users", json={"email": email, "password": PASSWORD})
        assert taken.status_code == 409
        again = admin_api.post(
            "/admin/users", json={"email": "x" + email, "password": PASSWORD}
        )  # a later change, so the refused one had its chance to be sent first
        assert again.status_code == 201
        receipts = receiver.wait_for(2)
        assert [json.loads(r.body)["data"]["user_id"] for r in receipts] == [
            made.json()["id"],
            again.json()["id"],
        ]
