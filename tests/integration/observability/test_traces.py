"""Traces (issue 22, acceptance 4): with ``OTEL_EXPORTER_OTLP_ENDPOINT`` pointing at an OTLP
receiver in the test process,

(a) a token request sent straight to the token service's port (no proxy) is one trace:
    its server span, named after the route, and under it the Postgres and Redis spans of
    the same trace id, whose parent links form one tree; no span carries a secret;
(b) a logout's trace reaches the dispatcher: the outbox row keeps the request's
    ``traceparent``, the relay publishes it in a producer span, the dispatcher's fan-out
    span is that span's child and the back-channel POST the fan-out's; the receiver gets
    the same trace in its ``traceparent`` header, and the query string (``id_token_hint``)
    is in no span;
(c) a worker that stops exports the spans still waiting in its batch;
(d) the public proxy drops a caller's ``traceparent`` (a trace of its own begins), a
    service's own port continues it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx
import pytest

from tests.harness import oidc, records
from tests.harness.otlp import OtlpReceiver, ReceivedSpan
from tests.harness.receivers import Receiver
from tests.integration.observability.conftest import Traced
from tests.integration.observability.flows import exchange_and_refresh, log_out, sign_in

pytestmark = pytest.mark.integration


def server_span(collector: OtlpReceiver, service: str, name: str, request_id: str) -> ReceivedSpan:
    """The server span of the request answered with ``X-Request-Id: request_id``."""

    def matches(span: ReceivedSpan) -> bool:
        return (
            span.kind == "server"
            and span.service == service
            and span.attributes.get("idp.request_id") == request_id
        )

    spans = collector.wait_for(lambda spans: any(matches(s) for s in spans))
    found = [span for span in spans if matches(span)]
    assert len(found) == 1, f"no server span of request {request_id} among {len(spans)}"
    assert found[0].name == name
    return found[0]


def trace_when(
    collector: OtlpReceiver, trace_id: str, done: Callable[[list[ReceivedSpan]], bool]
) -> list[ReceivedSpan]:
    collector.wait_for(lambda spans: done([s for s in spans if s.trace_id == trace_id]))
    return collector.trace(trace_id)


def ancestors(span: ReceivedSpan, by_id: dict[str, ReceivedSpan]) -> list[ReceivedSpan]:
    chain: list[ReceivedSpan] = []
    while span.parent_id in by_id:
        span = by_id[span.parent_id]
        assert span not in chain, "a cycle of parent links"
        chain.append(span)
    return chain


def is_db(system: str) -> Callable[[ReceivedSpan], bool]:
    return lambda span: span.kind == "client" and span.attributes.get("db.system") == system


def test_a_proxy_less_token_request_is_one_trace_through_postgres_and_redis(
    traced: Traced,
) -> None:
    stack, collector = traced.stack, traced.collector
    app = records.create_client(stack, skip_consent=True)
    with oidc.Browser(stack) as browser:
        session = sign_in(stack, app, browser)
    exchange_and_refresh(session, stack.service_url("token"))

    for step in ("exchange", "refresh"):
        answer = session.answers[step]
        server = server_span(
            collector, "idp-token", "POST /oauth2/token", answer.headers["x-request-id"]
        )
        assert server.attributes["http.route"] == "/oauth2/token"
        assert server.parent_id == ""  # the request began the trace
        spans = trace_when(
            collector,
            server.trace_id,
            lambda spans: any(map(is_db("postgresql"), spans)) and any(map(is_db("redis"), spans)),
        )
        by_id = {span.span_id: span for span in spans}
        assert [s for s in spans if s.parent_id not in by_id] == [server], "one root"
        for span in spans:
            if span is not server:
                assert server in ancestors(span, by_id), f"{span.name} outside the tree"
        database = [s for s in spans if is_db("postgresql")(s)]
        redis = [s for s in spans if is_db("redis")(s)]
        assert database and redis, [s.name for s in spans]
        assert {s.service for s in spans} == {"idp-token"}
        for span in database:  # the statement with its placeholders, never a value
            statement = span.attributes.get("db.statement") or span.attributes.get("db.query.text")
            assert statement, span.attributes
            assert "db.statement.parameters" not in span.attributes
        for span in redis:  # the command and a "?" per argument
            statement = str(span.attributes.get("db.statement", ""))
            assert set(statement.split()[1:]) <= {"?"}, statement
        assert_no_secret(spans, session.secrets())


def assert_no_secret(spans: list[ReceivedSpan], secrets: dict[str, str]) -> None:
    text = "\n".join(span.text() for span in spans)
    for name, value in secrets.items():
        assert value not in text, f"the {name} is in a span"


def test_a_logout_trace_reaches_the_dispatcher_and_its_back_channel_post(traced: Traced) -> None:
    stack, collector = traced.stack, traced.collector
    with Receiver() as relying_party:
        app = records.create_client(
            stack, skip_consent=True, backchannel_logout_uri=relying_party.url
        )
        with oidc.Browser(stack) as browser:
            session = sign_in(stack, app, browser)
            exchange_and_refresh(session, stack.proxy_url)
            logout = log_out(session, browser)
        delivered = relying_party.wait_for(1, timeout=30)
    assert len(delivered) == 1, "no back-channel logout arrived"

    request_id = logout.headers["x-request-id"]
    server = server_span(collector, "idp-token", "GET /oauth2/logout", request_id)
    assert "?" not in json.dumps(server.attributes), server.attributes  # no query string

    def reached_receiver(spans: list[ReceivedSpan]) -> bool:
        """The POST, its fan-out and the publication, each exported when it ended."""
        kinds = {s.kind for s in spans if s.service == "idp-logout-dispatcher"}
        return {"producer", "consumer", "client"} <= kinds and any(s.name == "POST" for s in spans)

    spans = trace_when(collector, server.trace_id, reached_receiver)
    by_id = {span.span_id: span for span in spans}
    # the logout's webhook event (session.ended, issue #27) is published in this trace too
    (publish,) = [s for s in spans if s.kind == "producer" and ".webhook." not in s.name]
    (fan_out,) = [s for s in spans if s.kind == "consumer" and s.name == "logout fan-out"]
    posts = [
        s
        for s in spans
        if s.kind == "client"
        and s.service == "idp-logout-dispatcher"
        and "db.system" not in s.attributes
    ]
    assert publish.service == "idp-logout-dispatcher"  # the relay runs in the dispatcher
    assert publish.name.startswith("publish ") and publish.name.endswith(".session.ended")
    assert server in ancestors(publish, by_id), "the publication is not under the logout"
    assert fan_out.name == "logout fan-out"
    assert fan_out.service == "idp-logout-dispatcher"
    assert fan_out.parent_id == publish.span_id
    assert fan_out.attributes["idp.logout.recipients"] == 1
    assert len(posts) == 1, [s.name for s in posts]
    (post,) = posts
    assert post.name == "POST"
    assert fan_out in ancestors(post, by_id)
    url = str(post.attributes.get("url.full") or post.attributes.get("http.url"))
    assert url == relying_party.url
    # the application can join the trace: httpx sent it along
    assert delivered[0].headers["traceparent"].split("-")[1] == server.trace_id
    assert_no_secret(
        spans, {**session.secrets(), "logout token": delivered[0].form["logout_token"]}
    )


def test_a_worker_flushes_its_spans_when_it_stops(traced: Traced) -> None:
    """Spans still waiting in the batch processor are exported when the service stops
    (SIGTERM), not lost: here the batch would wait ten minutes."""
    stack, collector = traced.stack, traced.collector
    process = stack.start_service("token", {"OTEL_BSP_SCHEDULE_DELAY": "600000"})
    try:
        stack.wait_until_up(process)
        answer = httpx.get(process.url + "/.well-known/openid-configuration", timeout=10)
        assert answer.status_code == 200
        request_id = answer.headers["x-request-id"]
        time.sleep(1)
        assert not [
            s for s in collector.snapshot() if s.attributes.get("idp.request_id") == request_id
        ]
    finally:
        process.stop()
        stack.processes.remove(process)
    assert process.popen.returncode == 0, process.log_tail()
    server_span(collector, "idp-token", "GET /.well-known/openid-configuration", request_id)


def test_the_proxy_drops_a_callers_trace_context_and_a_service_port_keeps_it(
    traced: Traced,
) -> None:
    stack, collector = traced.stack, traced.collector
    chosen = "4bf92f3577b34da6a3ce929d0e0e4736"
    headers = {"traceparent": f"00-{chosen}-00f067aa0ba902b7-01", "baggage": "k=v"}
    discovery = "/.well-known/openid-configuration"
    public = httpx.get(stack.proxy_url + discovery, headers=headers, timeout=10)
    internal = httpx.get(stack.service_url("token") + discovery, headers=headers, timeout=10)
    name = f"GET {discovery}"
    outside = server_span(collector, "idp-token", name, public.headers["x-request-id"])
    assert outside.trace_id != chosen and outside.parent_id == ""  # a trace of its own
    inside = server_span(collector, "idp-token", name, internal.headers["x-request-id"])
    assert inside.trace_id == chosen and inside.parent_id == "00f067aa0ba902b7"
