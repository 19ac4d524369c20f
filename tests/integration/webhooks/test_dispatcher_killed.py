"""A dispatcher killed mid-delivery loses nothing (issue #27 acceptance 2): SIGKILL to the
logout dispatcher (master and workers) while the receiver holds the POST open; once it runs
again the lease of the interrupted attempt runs out and the event is delivered, with the same
``webhook-id``. An event the fan-out met while PostgreSQL was unreachable is sent again by
JetStream and delivered once the database answers. And a dispatcher that does not allow
private targets refuses one at delivery time. The module has a stack of its own: it kills
and restarts a service."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time

import nats
import pytest

from idp_common.events.webhook_events import webhook_payload, webhook_subject
from tests.harness import infra
from tests.harness.stack import Process, Stack
from tests.integration.webhooks.support import (
    HANG,
    WebhookAdmin,
    WebhookReceiver,
    delivery_rows,
    emit,
    register,
    verify,
    wait_for_status,
)

pytestmark = pytest.mark.e2e

DISPATCHER = "logout-dispatcher"
FAN_OUT = "webhook-fanout"


def _dispatcher(stack: Stack) -> Process:
    (process,) = [p for p in stack.processes if p.name == DISPATCHER and p.popen.poll() is None]
    return process


def test_a_delivery_interrupted_by_a_kill_is_made_after_restart(private_stack: Stack) -> None:
    stack = private_stack
    api = WebhookAdmin(stack)
    try:
        with WebhookReceiver(script=[HANG, 200]) as receiver:
            endpoint = register(api, receiver.url, ["user.created"])
            payload = emit(stack, "user.created", user_id="u-kill")
            (first,) = receiver.wait_for(1)  # the attempt is in flight, the receiver silent
            victim = _dispatcher(stack)
            os.killpg(victim.popen.pid, signal.SIGKILL)
            victim.popen.wait(10)
            stack.processes.remove(victim)
            (row,) = delivery_rows(stack, endpoint["id"])
            assert (row["status"], row["attempts"], row["lease_until"] is not None) == (
                "pending",
                0,
                True,
            )
            restarted = stack.start_service(DISPATCHER, port=stack.service_ports[DISPATCHER])
            stack.wait_until_up(restarted)
            receipts = receiver.wait_for(2, timeout=60)
            assert len(receipts) == 2
            assert receipts[1].headers["webhook-id"] == first.headers["webhook-id"] == payload["id"]
            assert verify(endpoint["secret"], receipts[1]) == payload
            rows = wait_for_status(stack, endpoint["id"], "succeeded")
            assert [(r["status"], r["attempts"], r["last_status_code"]) for r in rows] == [
                ("succeeded", 1, 200)
            ]
    finally:
        api.close()


def test_a_private_target_is_refused_again_at_delivery(private_stack: Stack) -> None:
    """Registered while private targets were allowed, refused by a dispatcher that does not
    allow them: checked after resolution, before connecting; nothing reaches the receiver."""
    stack = private_stack
    old = _dispatcher(stack)
    old.stop()
    stack.processes.remove(old)
    strict = stack.start_service(
        DISPATCHER,
        {"SVC_WEBHOOK_ALLOW_PRIVATE": "false"},
        port=stack.service_ports[DISPATCHER],
    )
    api = WebhookAdmin(stack)
    try:
        stack.wait_until_up(strict)
        with WebhookReceiver() as receiver:
            endpoint = register(api, receiver.url, ["client.created"])
            emit(stack, "client.created", client_id="c-private")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                rows = delivery_rows(stack, endpoint["id"])
                if rows and int(str(rows[0]["attempts"])) >= 2:
                    break
                time.sleep(0.05)
            (row,) = delivery_rows(stack, endpoint["id"])
            assert int(str(row["attempts"])) >= 2
            assert row["last_error"] == "forbidden_address (loopback)"
            assert row["last_status_code"] is None
            assert receiver.snapshot() == []
    finally:
        api.close()
        strict.stop()
        stack.processes.remove(strict)
        stack.wait_until_up(stack.start_service(DISPATCHER, port=stack.service_ports[DISPATCHER]))


async def _publish_and_count(stack: Stack, payload: dict[str, object] | None) -> int:
    """Publish ``payload`` as the relay would (when given); the fan-out consumer's count of
    messages it had to send again (each nak'ed one is)."""
    client = await nats.connect(stack.env["SVC_NATS_URL"])
    try:
        js = client.jetstream()
        if payload is not None:
            subject = webhook_subject(stack.env["SVC_NATS_PREFIX"], str(payload["type"]))
            await js.publish(subject, json.dumps(payload).encode())
        stream = f"{stack.env['SVC_NATS_PREFIX'].upper()}_EVENTS"
        return int((await js.consumer_info(stream, FAN_OUT)).num_redelivered)
    finally:
        await client.close()


def test_an_event_met_by_a_database_outage_is_queued_when_it_returns(
    private_stack: Stack,
) -> None:
    """The fan-out cannot write the delivery rows (PostgreSQL unreachable): it naks the
    event, which JetStream sends again until a dispatcher that reaches the database queues
    and delivers it. Nothing is lost, nothing is delivered twice."""
    stack = private_stack
    old = _dispatcher(stack)
    old.stop()
    stack.processes.remove(old)
    closed = f"postgresql+asyncpg://postgres@127.0.0.1:{infra.closed_port()}/x"
    blind = stack.start_service(
        DISPATCHER, {"SVC_DATABASE_URL": closed}, port=stack.service_ports[DISPATCHER]
    )
    api = WebhookAdmin(stack)
    try:
        stack.wait_until_up(blind, "/health/live")
        with WebhookReceiver() as receiver:
            endpoint = register(api, receiver.url, ["user.deleted"])
            payload = webhook_payload("user.deleted", {"user_id": "u-outage"})
            before = asyncio.run(_publish_and_count(stack, payload))
            deadline = time.monotonic() + 30
            while asyncio.run(_publish_and_count(stack, None)) <= before:
                assert time.monotonic() < deadline, "the fan-out never sent the event again"
                time.sleep(0.5)
            assert delivery_rows(stack, endpoint["id"]) == []
            assert receiver.snapshot() == []
            blind.stop()
            stack.processes.remove(blind)
            restarted = stack.start_service(DISPATCHER, port=stack.service_ports[DISPATCHER])
            stack.wait_until_up(restarted)
            (receipt,) = receiver.wait_for(1, timeout=60)
            assert verify(endpoint["secret"], receipt) == payload
            rows = wait_for_status(stack, endpoint["id"], "succeeded")
            assert [(r["status"], r["attempts"]) for r in rows] == [("succeeded", 1)]
    finally:
        api.close()
        if blind.popen.poll() is None:
            blind.stop()
            stack.processes.remove(blind)
            again = stack.start_service(DISPATCHER, port=stack.service_ports[DISPATCHER])
            stack.wait_until_up(again)
