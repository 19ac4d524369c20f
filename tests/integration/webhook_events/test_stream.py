"""A committed event reaches JetStream (docs/webhooks.md "Events"): the relay publishes
the outbox row on ``{prefix}.webhook.<type>``, the subject the webhook fan-out consumes
(``{prefix}.webhook.>``), with the payload written in the change's transaction."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import nats
import pytest
from nats.js.api import ConsumerConfig, DeliverPolicy

from idp_common.events.webhook_events import WEBHOOK_SUBJECTS_FILTER
from tests.harness import infra
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.webhook_events.support import events_about, one

pytestmark = pytest.mark.integration


async def _published(stack: Stack, event_id: str, wait: float) -> tuple[str, dict[str, Any]]:
    """The message carrying ``event_id`` among those of ``{prefix}.webhook.>``, read from
    the start of the stream by an ordered consumer of this test's own."""
    prefix = stack.env["SVC_NATS_PREFIX"]
    client = await nats.connect(stack.env["SVC_NATS_URL"])
    try:
        js = client.jetstream()
        deadline = asyncio.get_running_loop().time() + wait
        while True:  # the relay may not have published it yet: read the stream again
            sub = await js.subscribe(
                WEBHOOK_SUBJECTS_FILTER.format(prefix=prefix),
                ordered_consumer=True,
                config=ConsumerConfig(deliver_policy=DeliverPolicy.ALL),
            )
            try:
                while True:
                    try:
                        msg = await sub.next_msg(timeout=1)
                    except nats.errors.TimeoutError:
                        break
                    payload = json.loads(msg.data)
                    if payload["id"] == event_id:
                        return msg.subject, payload
            finally:
                await sub.unsubscribe()
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{event_id} was not published")
    finally:
        await client.close()


def test_a_committed_event_is_published_on_its_subject(admin_api: AdminApi) -> None:
    stack = admin_api.stack
    body = {
        "name": "Stream app",
        "type": "public",
        "redirectUris": ["https://stream.example/cb"],
        "grantTypes": ["authorization_code"],
    }
    created = admin_api.post("/admin/clients", json=body)
    assert created.status_code == 201, created.text
    client_id = created.json()["client_id"]
    data = one(stack, client_id, "client.created")
    (row,) = [e for e in events_about(stack, client_id) if e["type"] == "client.created"]
    subject, payload = infra.run(_published(stack, row["id"], wait=30))
    assert subject == f"{stack.env['SVC_NATS_PREFIX']}.webhook.client.created"
    assert payload == row
    assert payload["data"] == data
