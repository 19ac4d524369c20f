"""Reading the webhook events a test's actions wrote (docs/webhooks.md "Events"): the
``event_outbox`` rows of the stack's database whose subject is ``{prefix}.webhook.*``."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.harness.records import query
from tests.harness.stack import Stack

EVENT_ID = re.compile(r"evt_[0-9a-f]{32}")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def webhook_prefix(stack: Stack) -> str:
    return f"{stack.env['SVC_NATS_PREFIX']}.webhook."


def events_about(stack: Stack, value: str) -> list[dict[str, Any]]:
    """Every webhook event whose ``data`` names ``value`` (a person's or a client's id),
    oldest first; each checked for the payload's shape and its subject."""
    rows = query(
        stack,
        "SELECT subject, payload::text AS payload FROM event_outbox"
        " WHERE subject LIKE $1 || '%' AND (payload->'data')::text LIKE '%' || $2 || '%'"
        " ORDER BY id",
        webhook_prefix(stack),
        value,
    )
    events = []
    for row in rows:
        payload = json.loads(str(row["payload"]))
        assert set(payload) == {"id", "type", "timestamp", "data"}, payload
        assert EVENT_ID.fullmatch(payload["id"]), payload
        assert TIMESTAMP.fullmatch(payload["timestamp"]), payload
        assert row["subject"] == webhook_prefix(stack) + payload["type"]
        events.append(payload)
    return events


def types_about(stack: Stack, value: str) -> list[str]:
    return [event["type"] for event in events_about(stack, value)]


def one(stack: Stack, value: str, event_type: str) -> dict[str, Any]:
    """The ``data`` of the one ``event_type`` event about ``value``."""
    found = [e["data"] for e in events_about(stack, value) if e["type"] == event_type]
    assert len(found) == 1, (event_type, types_about(stack, value))
    data: dict[str, Any] = found[0]
    return data


def assert_no_secret(stack: Stack, value: str, *secrets: str) -> None:
    """No event about ``value`` carries any of ``secrets`` (passwords, client secrets,
    codes, emails) anywhere in its payload."""
    text = json.dumps(events_about(stack, value))
    for secret in secrets:
        assert secret not in text, secret
