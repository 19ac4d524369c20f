"""Webhooks in the console (issue #27), through the browser only.

The first administrator registers an endpoint for ``user.created`` on the Webhooks screen
(a refused URL first, named at its field), sees the signing secret once, then creates a
person on the Users screen: the receiver (a real HTTP server on 127.0.0.1) gets the event,
signed with the secret the console showed, and the endpoint's delivery log shows it as
succeeded with the receiver's 200. "Send again" delivers it once more with the same
``webhook-id``; "Rotate secret" shows a new secret once, and the next delivery is signed
with it; the endpoint is switched off in the list and deleted.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.harness.browser import PageLog
from tests.harness.console import (
    check_screen,
    create_first_admin,
    find_row,
    new_person,
    sign_in,
    wait_for_console,
)
from tests.harness.console_steps import create_user, field_error, open_screen
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

DELIVERIES = "Deliveries to this endpoint, newest first"
#: How long the dispatcher may take to deliver (its worker wakes at once after fan-out).
DELIVERY_WAIT = 30.0


@dataclass(frozen=True)
class Hook:
    headers: dict[str, str]
    body: bytes


@dataclass
class JsonReceiver:
    """Records every POST (headers and the exact body) and answers 200."""

    hooks: list[Hook] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)
    url: str = ""


@contextmanager
def json_receiver() -> Iterator[JsonReceiver]:
    receiver = JsonReceiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with receiver.arrived:
                receiver.hooks.append(Hook({k.lower(): v for k, v in self.headers.items()}, body))
                receiver.arrived.notify_all()
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/idp-events"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def signed_with(hook: Hook, secret: str) -> bool:
    """Standard Webhooks v1: base64 HMAC-SHA256 of ``id.timestamp.body`` with the key the
    ``whsec_`` secret encodes, among the space-separated signatures of the header."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    content = f"{hook.headers['webhook-id']}.{hook.headers['webhook-timestamp']}.".encode()
    expected = base64.b64encode(hmac.new(key, content + hook.body, hashlib.sha256).digest())
    return any(
        hmac.compare_digest(part.removeprefix("v1,").encode(), expected)
        for part in hook.headers["webhook-signature"].split(" ")
        if part.startswith("v1,")
    )


def events_about(receiver: JsonReceiver, user_id: str, count: int) -> list[Hook]:
    """The deliveries whose event is about ``user_id``, once ``count`` of them arrived.
    Other tests of the session make people too: their events reach this endpoint as well."""

    def about() -> list[Hook]:
        return [h for h in receiver.hooks if json.loads(h.body)["data"].get("user_id") == user_id]

    with receiver.arrived:
        receiver.arrived.wait_for(lambda: len(about()) >= count, timeout=DELIVERY_WAIT)
        found = about()
    assert len(found) >= count, f"{len(found)} of {count} deliveries about {user_id} arrived"
    return found


def made_user(page: Page, display_name: str) -> str:
    """A person made on the Users screen; answers their id, read from their screen (the
    notice of the creation links to it)."""
    create_user(page, new_person("webhook"), display_name)
    page.get_by_role("status").filter(has_text="User created").get_by_role("link").click()
    fact = page.locator("dt", has_text="User id").locator("xpath=following-sibling::dd[1]")
    return fact.inner_text()


def take_secret(page: Page, title: str) -> str:
    """The secret of the dialog shown once; closing it is the acknowledgement."""
    dialog = page.get_by_role("dialog", name=title)
    expect(dialog).to_contain_text("You will not see it again")
    secret = dialog.get_by_test_id("webhook-secret").inner_text()
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]+=*", secret), secret
    return secret


def delivery_row(page: Page, event_id: str) -> Locator:
    """The row of an event (its cell shows the id's start, the whole id as the tooltip)."""
    log = page.get_by_role("region", name=DELIVERIES)
    return log.get_by_role("row").filter(has=page.get_by_title(event_id, exact=True))


def expect_row_status(page: Page, event_id: str, status: str) -> Locator:
    """Refreshes the log until the delivery shows ``status`` (the receiver got it first;
    the dispatcher records the outcome right after)."""
    row = delivery_row(page, event_id)
    deadline = time.monotonic() + DELIVERY_WAIT
    while True:
        page.get_by_role("button", name="Refresh the delivery log").click()
        page.get_by_role("region", name=DELIVERIES).wait_for()
        if row.count() and status in row.inner_text():
            return row
        assert time.monotonic() < deadline, f"{event_id} never showed {status}"
        page.wait_for_timeout(300)


def test_an_endpoint_registered_in_the_console_gets_signed_events_listed_in_its_log(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    admin = create_first_admin(stack)
    sign_in(page, stack, admin)
    with json_receiver() as receiver:
        open_screen(page, "Webhooks")
        form = page.get_by_role("form", name="New endpoint")
        types = form.get_by_role("group", name="Event types")
        # A URL with a fragment is refused by the API, at the URL field.
        form.get_by_label("URL").fill(receiver.url + "#part")
        types.get_by_role("checkbox", name="user.created", exact=True).check()
        form.get_by_role("button", name="Create endpoint").click()
        field_error(form.get_by_label("URL"), "no fragment")
        expect(form.get_by_role("alert")).to_contain_text("URL")
        check_screen(page, "admin-webhooks-refused", request)

        form.get_by_label("URL").fill(receiver.url)
        form.get_by_label("Description (optional)").fill("Directory sync (console test)")
        # "All event types", then back to none, then the one type.
        everything = types.get_by_role("checkbox", name="All event types")
        everything.check()
        expect(types.get_by_role("checkbox", name="signin.failed", exact=True)).to_be_checked()
        everything.uncheck()
        expect(types.get_by_role("checkbox", checked=True)).to_have_count(0)
        types.get_by_role("checkbox", name="user.created", exact=True).check()
        form.get_by_role("button", name="Create endpoint").click()

        title = f"Webhook to {urlsplit(receiver.url).netloc}"
        secret = take_secret(page, "Endpoint created: its signing secret")
        check_screen(page, "admin-webhooks-secret-once", request)
        page.get_by_role("button", name="I have saved it").click()
        expect(page.get_by_role("status").filter(has_text="Endpoint created.")).to_be_visible()
        expect(page.get_by_role("heading", level=1)).to_have_text(title)
        # Shown once: the endpoint's screen does not carry it.
        expect(page.get_by_text(secret)).to_have_count(0)
        endpoint_path = page.url

        # An event: a person made on the Users screen.
        user_id = made_user(page, "Webhook Person")
        first = events_about(receiver, user_id, 1)[0]
        event = json.loads(first.body)
        assert event["type"] == "user.created"
        assert first.headers["webhook-id"] == event["id"]
        assert signed_with(first, secret)

        page.goto(endpoint_path)
        wait_for_console(page)
        expect(page.get_by_role("heading", level=1)).to_have_text(title)
        row = expect_row_status(page, event["id"], "Succeeded")
        expect(row.get_by_role("rowheader")).to_have_text("user.created")
        expect(row).to_contain_text("HTTP 200")
        expect(row).to_contain_text("Delivered")
        check_screen(page, "admin-webhook-log", request)
        # On a phone: one column, the log scrolls sideways inside its region.
        page.set_viewport_size({"width": 390, "height": 844})
        expect(row.get_by_role("button", name=re.compile(r"^Send again"))).to_be_attached()
        check_screen(page, "admin-webhook-log-phone", request)
        wider = page.evaluate(
            """() => [...document.querySelectorAll("main *")]
                .filter(e => !e.closest(".table-wrap, .visually-hidden"))
                .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
                .map(e => e.tagName + "." + e.className).slice(0, 5)"""
        )
        assert wider == [], wider
        page.set_viewport_size({"width": 1024, "height": 768})

        # Send again: the same event, the same webhook-id, once more.
        row.get_by_role("button", name=re.compile(r"^Send again")).click()
        expect(page.get_by_role("status").filter(has_text="will be sent again")).to_be_visible()
        again = events_about(receiver, user_id, 2)[1]
        assert again.headers["webhook-id"] == event["id"]
        assert json.loads(again.body) == event
        assert signed_with(again, secret)
        expect_row_status(page, event["id"], "Succeeded")

        # Rotation: a new secret, shown once, signs what comes next.
        page.get_by_role("button", name="Rotate secret").click()
        page.get_by_role("alertdialog").get_by_role("button", name="Rotate").click()
        rotated = take_secret(page, "The new signing secret")
        assert rotated != secret
        page.get_by_role("button", name="I have saved it").click()
        expect(page.get_by_text(rotated)).to_have_count(0)
        other_id = made_user(page, "Webhook Person Two")
        third = events_about(receiver, other_id, 1)[0]
        assert signed_with(third, rotated) and not signed_with(third, secret)

        # Off in the list, then deleted.
        open_screen(page, "Webhooks")
        listed = find_row(page, "Webhook endpoints", receiver.url, link=True)
        switch = listed.get_by_role("switch")
        expect(switch).to_be_checked()
        switch.uncheck()
        expect(switch).not_to_be_checked()
        expect(switch).to_be_enabled()
        check_screen(page, "admin-webhooks-list", request)
        listed.get_by_role("link", name=receiver.url, exact=True).click()
        page.get_by_role("button", name="Delete endpoint").click()
        page.get_by_role("alertdialog").get_by_role("button", name="Delete").click()
        expect(page.get_by_role("status").filter(has_text="deleted")).to_contain_text(receiver.url)
    assert page_log.problems(expected_statuses=[422]) == []
