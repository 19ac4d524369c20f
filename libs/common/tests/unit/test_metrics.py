"""The metric families, the switch, the request wrapper and the exposition, in one process
(prometheus-client's single-process mode: the values live in ``metrics.REGISTRY``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.parser import text_string_to_metric_families

from idp_common.observability import metrics
from idp_common.web.drain import DrainRequestBody
from idp_common.web.metrics_endpoint import exposition
from idp_common.web.metrics_http import RequestMetrics


@pytest.fixture(autouse=True)
def counting() -> Iterator[None]:
    metrics.configure(enabled=True, service="unit")
    yield
    metrics.configure(enabled=False, service="")


def value(name: str, **labels: str) -> float:
    metrics.flush()
    found = metrics.REGISTRY.get_sample_value(name, {"service": "unit", **labels})
    return found or 0.0


@pytest.mark.parametrize(
    ("status", "error", "expected"),
    [
        (200, None, "2xx"),
        (204, None, "2xx"),
        (302, None, "3xx"),
        (404, None, "4xx"),
        (503, None, "5xx"),
        (0, "timeout", "timeout"),
        (0, "connect", "error"),
        (0, "forbidden_address", "error"),
        (0, None, "error"),
        (99, None, "1xx"),
        (700, None, "5xx"),
    ],
)
def test_status_class(status: int, error: str | None, expected: str) -> None:
    assert metrics.status_class(status, error) == expected


def test_counts_go_to_their_labels() -> None:
    before = value(
        "idp_tokens_issued_total", grant_type="client_credentials", client_type="confidential"
    )
    metrics.count_token_issued("client_credentials", confidential=True)
    metrics.count_token_issued("client_credentials", confidential=True)
    metrics.count_token_issued("refresh_token", confidential=False)
    assert (
        value(
            "idp_tokens_issued_total", grant_type="client_credentials", client_type="confidential"
        )
        == before + 2
    )
    assert value("idp_tokens_issued_total", grant_type="refresh_token", client_type="public") >= 1

    refused = value("idp_rate_limit_refusals_total", limit="token")
    metrics.count_limit_refusal("token")
    assert value("idp_rate_limit_refusals_total", limit="token") == refused + 1

    signins = value("idp_signin_attempts_total", method="password", reason="bad_password")
    metrics.count_signin("password", "bad_password")
    assert (
        value("idp_signin_attempts_total", method="password", reason="bad_password") == signins + 1
    )

    timeouts = value("idp_backchannel_deliveries_total", status_class="timeout")
    metrics.count_backchannel_delivery(0, "timeout")
    assert value("idp_backchannel_deliveries_total", status_class="timeout") == timeouts + 1


def test_nothing_counts_while_switched_off() -> None:
    metrics.configure(enabled=False, service="unit")
    before = value("idp_rate_limit_refusals_total", limit="off-test")
    metrics.count_limit_refusal("off-test")
    metrics.set_pool_usage("orm", in_use=3, idle=2, most=10)
    assert value("idp_rate_limit_refusals_total", limit="off-test") == before == 0
    assert value("idp_db_pool_max_connections", pool="orm") == 0


def test_pool_usage_is_set_not_added() -> None:
    metrics.set_pool_usage("hot", in_use=3, idle=2, most=16)
    metrics.set_pool_usage("hot", in_use=1, idle=4, most=16)
    assert value("idp_db_pool_connections", pool="hot", state="in_use") == 1
    assert value("idp_db_pool_connections", pool="hot", state="idle") == 4
    assert value("idp_db_pool_max_connections", pool="hot") == 16


# --- the request wrapper -------------------------------------------------------------------


def asgi_app(template: str | None, status: int | None, fail: bool = False) -> Any:
    """An app that sets Litestar's path template (when routed) and answers ``status``."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if template is not None:
            scope["path_template"] = template
        if fail:
            raise RuntimeError("boom")
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    return app


async def call(app: Any, method: str, path: str) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": []}
    await RequestMetrics(DrainRequestBody(app, limit=1000))(scope, receive, send)
    return sent


def requests(route: str, method: str, status: str) -> float:
    return value("idp_http_requests_total", route=route, method=method, status=status)


def observed(route: str, method: str) -> float:
    return value("idp_http_request_duration_seconds_count", route=route, method=method)


async def test_a_request_is_counted_by_template_method_and_status() -> None:
    route = "/things/{thing_id:str}"
    before, timed = requests(route, "GET", "200"), observed(route, "GET")
    sent = await call(asgi_app(route, 200), "GET", "/things/abc")
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert requests(route, "GET", "200") == before + 1
    assert observed(route, "GET") == timed + 1
    assert value("idp_http_requests_total", route="/things/abc", method="GET", status="200") == 0


async def test_unrouted_paths_and_odd_methods_have_fixed_labels() -> None:
    before = requests("unmatched", "other", "404")
    await call(asgi_app(None, 404), "BREW", "/coffee-pot-123")
    await call(asgi_app(None, 404), "PROPFIND", "/another")
    assert requests("unmatched", "other", "404") == before + 2


async def test_an_app_that_raises_is_counted_as_500() -> None:
    before = requests("/boom", "POST", "500")
    with pytest.raises(RuntimeError):
        await call(asgi_app("/boom", None, fail=True), "POST", "/boom")
    assert requests("/boom", "POST", "500") == before + 1


async def test_lifespan_messages_pass_through_uncounted() -> None:
    seen: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    async def nothing(*_: Any) -> Any:
        return None

    await RequestMetrics(DrainRequestBody(app, limit=1000))({"type": "lifespan"}, nothing, nothing)
    assert seen == ["lifespan"]


# --- the exposition ------------------------------------------------------------------------


def test_exposition_holds_the_workers_values_and_the_scrape_time_families() -> None:
    metrics.count_limit_refusal("exposed")
    extra = GaugeMetricFamily("idp_test_scraped", "A family read at scrape time.", 7)
    text = exposition([extra]).decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    refusals = families["idp_rate_limit_refusals"].samples
    assert any(s.labels.get("limit") == "exposed" and s.value >= 1 for s in refusals)
    assert families["idp_test_scraped"].samples[0].value == 7
    assert all(name.startswith("idp_") for name in families)


def test_tallies_are_written_as_observations_would_be() -> None:
    """A request on a bucket's bound falls in that bucket (``le``), one past it in the
    next; the count, the sum and the +Inf bucket hold every request."""
    tally = metrics.http_tally("/tallied", "GET", 200)
    for seconds in (0.001, 0.0011, 0.3, 20.0):
        tally.add(seconds)
    labels = {"route": "/tallied", "method": "GET"}
    assert value("idp_http_requests_total", status="200", **labels) == 4
    buckets = {
        le: value("idp_http_request_duration_seconds_bucket", le=le, **labels)
        for le in ("0.001", "0.0025", "0.25", "0.5", "10.0", "+Inf")
    }
    assert buckets == {"0.001": 1, "0.0025": 2, "0.25": 2, "0.5": 3, "10.0": 3, "+Inf": 4}
    assert value("idp_http_request_duration_seconds_sum", **labels) == pytest.approx(20.3021)
    assert tally.count == 0  # written out and zeroed
    assert value("idp_http_requests_total", status="200", **labels) == 4


def test_counts_are_written_out_when_flushed() -> None:
    labels = {"service": "unit", "limit": "flush-test"}
    metrics.count_limit_refusal("flush-test")
    assert metrics.REGISTRY.get_sample_value("idp_rate_limit_refusals_total", labels) is None
    metrics.flush()
    assert metrics.REGISTRY.get_sample_value("idp_rate_limit_refusals_total", labels) == 1
    metrics.flush()  # written once
    assert metrics.REGISTRY.get_sample_value("idp_rate_limit_refusals_total", labels) == 1


async def test_the_counted_app_still_drains_an_unread_body() -> None:
    """Counting takes the drain's place as the outermost coroutine: a body the app did not
    read is still read before the answer's last byte (``DrainRequestBody``)."""
    events: list[str] = []
    chunks = [b"a" * 10, b"b" * 10]

    async def receive() -> dict[str, Any]:
        events.append("receive")
        body = chunks.pop(0) if chunks else b""
        return {"type": "http.request", "body": body, "more_body": bool(chunks)}

    async def send(message: dict[str, Any]) -> None:
        events.append(message["type"])

    headers = [(b"content-length", b"20")]
    scope = {"type": "http", "http_version": "1.1", "method": "POST", "headers": headers}
    before = requests("/upload", "POST", "401")
    counted = RequestMetrics(DrainRequestBody(asgi_app("/upload", 401), limit=1000))
    await counted(scope, receive, send)
    assert events == ["http.response.start", "receive", "receive", "http.response.body"]
    assert requests("/upload", "POST", "401") == before + 1
