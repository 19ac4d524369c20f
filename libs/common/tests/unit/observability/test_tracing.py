"""Traces (idp_common.observability.tracing): on only with an OTLP endpoint; a server span
is named after the route template and never holds the query string, the path's values,
Authorization or cookies; PostgreSQL's DETAIL values leave no exported span."""

from __future__ import annotations

import json
from typing import Any

import pytest
from litestar import Litestar, get
from litestar.middleware.base import DefineMiddleware
from litestar.testing import TestClient
from opentelemetry.sdk.trace import Event, ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from idp_common.observability import tracing, tracing_sdk
from idp_common.observability.request_context import RequestContext

SECRET_VALUES = ("hint-value", "token-value", "cookie-value", "bearer-value", "path-value")


@pytest.mark.parametrize(
    ("environ", "on"),
    [
        ({}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": ""}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_on_only_with_an_endpoint(environ: dict[str, str], on: bool) -> None:
    assert tracing.enabled(environ) is on


def test_the_service_name() -> None:
    assert tracing.service_name("token", {}) == "idp-token"
    assert tracing.service_name("token", {"OTEL_SERVICE_NAME": "edge-token"}) == "edge-token"


def test_header_sanitizing_adds_to_the_operators_list() -> None:
    environ = {tracing_sdk.SANITIZE_VARIABLE: "x-internal"}
    tracing_sdk.sanitize_always(environ)
    fields = environ[tracing_sdk.SANITIZE_VARIABLE].split(",")
    assert fields[0] == "x-internal" and {"authorization", "cookie"} <= set(fields)


def test_a_server_span_holds_neither_query_nor_values_nor_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # even an operator asking for every header gets the credentials redacted
    monkeypatch.setenv("OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_REQUEST", ".*")
    monkeypatch.delenv(tracing_sdk.SANITIZE_VARIABLE, raising=False)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    @get("/items/{item:str}", sync_to_thread=False)
    def item(item: str, id_token_hint: str) -> dict[str, Any]:
        return {"item": item, "hint": id_token_hint}

    app = Litestar(
        [item],
        middleware=[
            tracing_sdk.server_middleware(provider),
            DefineMiddleware(RequestContext, name_spans=True),
        ],
    )
    with TestClient(app) as client:
        answer = client.get(
            "/items/path-value?id_token_hint=hint-value&access_token=token-value",
            headers={"Authorization": "Bearer bearer-value", "Cookie": "svc_session=cookie-value"},
        )
        probe = client.get("/health/ready")
    assert answer.json() == {"item": "path-value", "hint": "hint-value"}  # the app got it all
    assert probe.status_code == 404
    (span,) = exporter.get_finished_spans()  # the probe made none
    assert span.name == "GET /items/{item}"  # Litestar's template
    assert span.attributes is not None
    assert span.attributes["http.route"] == "/items/{item}"
    assert span.attributes["idp.request_id"] == answer.headers["x-request-id"]
    recorded = json.dumps({k: str(v) for k, v in span.attributes.items()})
    for value in SECRET_VALUES[:4]:
        assert value not in recorded, value
    assert "?" not in str(span.attributes.get("http.url"))
    assert "[REDACTED]" in recorded  # the Authorization and Cookie headers were asked for


def failed_statement() -> ReadableSpan:
    message = (
        'duplicate key value violates unique constraint "uq_users_email"\n'
        "DETAIL:  Key (email)=(someone@example.com) already exists."
    )
    return ReadableSpan(
        name="INSERT",
        attributes={"db.statement": "INSERT INTO users (email) VALUES ($1)"},
        events=[
            Event(
                "exception",
                {"exception.type": "UniqueViolationError", "exception.message": message},
            )
        ],
        status=Status(StatusCode.ERROR, f"UniqueViolationError: {message}"),
    )


def test_detail_values_are_scrubbed_before_export() -> None:
    exported = InMemorySpanExporter()
    tracing_sdk.ScrubbingExporter(exported).export([failed_statement()])
    (span,) = exported.get_finished_spans()
    assert span.events[0].attributes is not None
    message = str(span.events[0].attributes["exception.message"])
    assert "someone@example.com" not in message and "uq_users_email" in message
    assert "someone@example.com" not in str(span.status.description)
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes == {"db.statement": "INSERT INTO users (email) VALUES ($1)"}


def test_a_span_without_detail_is_exported_as_it_is() -> None:
    span = ReadableSpan(name="SELECT", attributes={"db.statement": "SELECT 1"})
    assert tracing_sdk.scrub(span) is span
