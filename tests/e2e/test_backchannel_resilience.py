"""A logout is never lost (issue 6 acceptance 3; docs/design.md "Events"): with NATS stopped
the sign-out still succeeds and the delivery happens when NATS is back; with the
dispatcher stopped, events wait (in the outbox, or in the stream once relayed) and are
delivered when it starts again. Several dispatcher replicas deliver each event once.

These tests stop and start NATS, so the module runs a stack of its own against a NATS
server of its own (the machine's is shared with other runs).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator

import nats
import pytest

from logout_dispatcher.consumer import DURABLE
from tests.harness import oidc, records
from tests.harness.nats_server import NatsServer
from tests.harness.receivers import Receiver
from tests.harness.stack import Process, Stack, running_stack

pytestmark = pytest.mark.e2e

DISPATCHER = "logout-dispatcher"


@pytest.fixture(scope="module")
def nats_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    server = NatsServer(tmp_path_factory.mktemp("nats") / "store")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory, nats_server: NatsServer) -> Iterator[Stack]:
    base = tmp_path_factory.mktemp("idp-own-nats")
    with running_stack(base, {"SVC_NATS_URL": nats_server.url}) as running:
        yield running


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


def signed_in(stack: Stack, app: records.TestClient) -> oidc.Browser:
    browser = oidc.Browser(stack)
    authorization = oidc.Authorization(app)
    browser.sign_in(authorization, records.create_user(stack))
    return browser


def log_out(browser: oidc.Browser, app: records.TestClient) -> float:
    """Log out; return how long the answer took (it must not wait on NATS or delivery)."""
    started = time.monotonic()
    response = browser.post("/oauth2/logout", data={"client_id": app.client_id})
    took = time.monotonic() - started
    assert response.status_code == 303, response.text
    browser.close()
    return took


def unpublished(stack: Stack) -> int:
    """Unpublished ``session.ended`` rows for the dispatcher (not the webhook events the
    same logouts and sign-ins write, issue #27)."""
    rows = records.query(
        stack,
        "SELECT count(*) AS n FROM event_outbox WHERE published_at IS NULL AND subject = $1",
        f"{stack.env['SVC_NATS_PREFIX']}.session.ended",
    )
    return int(str(rows[0]["n"]))


def dispatchers(stack: Stack) -> list[Process]:
    return [p for p in stack.processes if p.name == DISPATCHER and p.popen.poll() is None]


def start_dispatcher(stack: Stack) -> Process:
    process = stack.start_service(DISPATCHER)
    stack.wait_until_up(process, "/health/live")
    return process


async def _pending_in_stream(stack: Stack) -> int:
    client = await nats.connect(stack.env["SVC_NATS_URL"])
    try:
        stream = f"{stack.env['SVC_NATS_PREFIX'].upper()}_EVENTS"
        info = await client.jetstream().consumer_info(stream, DURABLE)
        return int(info.num_pending)
    finally:
        await client.close()


def pending_in_stream(stack: Stack) -> int:
    return asyncio.run(_pending_in_stream(stack))


def test_nats_down_the_logout_succeeds_and_is_delivered_when_it_returns(
    own: Stack, nats_server: NatsServer, receiver: Receiver
) -> None:
    app = records.create_client(own, skip_consent=True, backchannel_logout_uri=receiver.url)
    browser = signed_in(own, app)
    nats_server.stop()
    try:
        assert log_out(browser, app) < 1.0
        time.sleep(2)  # the relay polls every second: it would have published by now
        assert unpublished(own) == 1
        assert receiver.snapshot() == []
    finally:
        nats_server.start()
    got = receiver.wait_for(1, timeout=20)
    assert len(got) == 1
    oidc.verified_claims(own, got[0].form["logout_token"], audience=app.client_id)
    assert unpublished(own) == 0
    time.sleep(1)
    assert len(receiver.snapshot()) == 1


def test_dispatcher_down_events_wait_and_are_delivered_when_it_restarts(
    own: Stack, receiver: Receiver
) -> None:
    in_outbox = records.create_client(
        own, skip_consent=True, backchannel_logout_uri=receiver.url_for("/in-outbox")
    )
    in_stream = records.create_client(
        own, skip_consent=True, backchannel_logout_uri=receiver.url_for("/in-stream")
    )
    first, second = signed_in(own, in_outbox), signed_in(own, in_stream)
    for process in dispatchers(own):
        process.stop()
    try:
        log_out(second, in_stream)
        # An operator's relay run moves it into the stream, where the durable consumer
        # keeps it while no dispatcher runs.
        relayed = own.idp("relay")
        assert relayed.returncode == 0, relayed.stderr
        # the logout's session.ended and its webhook event (issue #27), perhaps sign-in ones
        published = re.search(r"published (\d+) event", relayed.stdout)
        assert published is not None and int(published[1]) >= 2, relayed.stdout
        assert pending_in_stream(own) == 1
        log_out(first, in_outbox)  # this one stays in the outbox
        time.sleep(1.5)
        assert unpublished(own) == 1
        assert receiver.snapshot() == []
    finally:
        start_dispatcher(own)
    got = receiver.wait_for(2, timeout=20)
    assert sorted(r.path for r in got) == ["/in-outbox", "/in-stream"]
    time.sleep(1)
    assert len(receiver.snapshot()) == 2
    assert pending_in_stream(own) == 0


def test_two_dispatchers_deliver_each_event_once(own: Stack, receiver: Receiver) -> None:
    extra = start_dispatcher(own)
    try:
        assert len(dispatchers(own)) == 2
        app = records.create_client(own, skip_consent=True, backchannel_logout_uri=receiver.url)
        browsers = [signed_in(own, app) for _ in range(12)]
        for browser in browsers:
            log_out(browser, app)
        got = receiver.wait_for(12, timeout=20)
        time.sleep(1.5)
        got = receiver.snapshot()
        sids = [
            oidc.verified_claims(own, r.form["logout_token"], audience=app.client_id)[1]["sid"]
            for r in got
        ]
        assert len(sids) == 12
        assert len(set(sids)) == 12
    finally:
        extra.stop()
