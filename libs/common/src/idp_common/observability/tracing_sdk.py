"""The OpenTelemetry SDK side of :mod:`.tracing`, imported only when tracing is on.

What a span never carries, because tokens travel there:

- the query string (``id_token_hint``, ``access_token``): the server middleware hides it
  from the ASGI instrumentation (``http.url``, ``url.query``) and gives it back to the app;
- headers, unless an operator asks for some; even then Authorization, cookies and anything
  named like a token, secret, password or session are replaced by ``[REDACTED]``
  (:data:`SENSITIVE_HEADERS`, added to ``OTEL_..._SANITIZE_FIELDS``);
- bodies (no instrumentation reads them);
- statement values: asyncpg spans hold the statement text with its ``$n`` placeholders
  (``capture_parameters`` stays off, and the repositories never inline values), Redis
  spans the command's name and a ``?`` per argument;
- PostgreSQL's ``DETAIL`` line in an error's message (:func:`scrub`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any, Final

from litestar.middleware.base import DefineMiddleware
from litestar.plugins.opentelemetry import (
    OpenTelemetryConfig,
    OpenTelemetryInstrumentationMiddleware,
)
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor
from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
from opentelemetry.instrumentation.redis import RedisInstrumentor
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import Event, ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Status

from idp_common.observability.log_redaction import redact

SANITIZE_VARIABLE: Final = "OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SANITIZE_FIELDS"
#: Header names (regular expressions, searched case-insensitively) never recorded.
SENSITIVE_HEADERS: Final = (
    "authorization",
    "cookie",
    "token",
    "secret",
    "password",
    "session",
    "dpop",
    "api-key",
)
#: Paths whose requests make no span: probes and scrapes, several a second.
UNTRACED_PATHS: Final = ("^/health", "^/metrics")
_HIDDEN_QUERY: Final = "idp.hidden_query_string"


def sanitize_always(environ: MutableMapping[str, str] = os.environ) -> None:
    """Add :data:`SENSITIVE_HEADERS` to whatever the operator asked to sanitize (the
    server and client instrumentations both read the variable)."""
    chosen = [f.strip() for f in environ.get(SANITIZE_VARIABLE, "").split(",") if f.strip()]
    environ[SANITIZE_VARIABLE] = ",".join(dict.fromkeys([*chosen, *SENSITIVE_HEADERS]))


def _method_only(scope: Any) -> tuple[str, dict[str, Any]]:
    """The span's first name: the route is not known before routing, the path may hold
    values (``RequestContext`` names it after the route template once routed)."""
    return str(scope.get("method") or "HTTP"), {}


class WithoutQueryString(OpenTelemetryInstrumentationMiddleware):
    """Litestar's middleware, whose instrumentation sees the request without its query
    string; the app gets it back."""

    def __init__(self, app: Any, config: OpenTelemetryConfig) -> None:
        super().__init__(app=_give_query_back(app), config=config)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        scope[_HIDDEN_QUERY] = scope.get("query_string", b"")
        scope["query_string"] = b""
        await super().__call__(scope, receive, send)


def _give_query_back(app: Any) -> Callable[..., Any]:
    async def with_query(scope: Any, receive: Any, send: Any) -> None:
        if _HIDDEN_QUERY in scope:  # absent when the middleware skipped the path
            scope["query_string"] = scope.pop(_HIDDEN_QUERY)
        await app(scope, receive, send)

    return with_query


def server_middleware(provider: trace.TracerProvider | None = None) -> DefineMiddleware:
    """The server span of every request but :data:`UNTRACED_PATHS` (``provider``: the
    process's, unless given)."""
    sanitize_always()
    config = OpenTelemetryConfig(
        scope_span_details_extractor=_method_only,
        exclude=list(UNTRACED_PATHS),
        exclude_spans=["receive", "send"],
        middleware_class=WithoutQueryString,
        tracer_provider=provider,
    )
    return config.middleware


def start(name: str) -> TracerProvider:
    """This process's tracer provider (service ``name``), exporter and instrumentations.
    Once per process."""
    sanitize_always()
    # Resource.create reads OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME itself.
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: name}))
    provider.add_span_processor(BatchSpanProcessor(ScrubbingExporter(OTLPSpanExporter())))
    trace.set_tracer_provider(provider)
    asyncpg_spans = AsyncPGInstrumentor(capture_parameters=False)  # type: ignore[no-untyped-call]
    asyncpg_spans.instrument(tracer_provider=provider)
    RedisInstrumentor().instrument(tracer_provider=provider)
    HTTPXClientInstrumentor().instrument(tracer_provider=provider)
    return provider


class ScrubbingExporter(SpanExporter):
    """Exports spans with PostgreSQL's ``DETAIL`` values hidden: a failed statement's
    error (``exception.message``, the traceback, the status description) names the row
    or key it refused, as in the log (``idp_common.observability.log_redaction``)."""

    def __init__(self, inner: SpanExporter) -> None:
        self._inner = inner

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self._inner.export([scrub(span) for span in spans])

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)


def _hidden(value: Any) -> Any:
    return redact(value) if isinstance(value, str) and "DETAIL:" in value else value


def _scrub_event(event: Event) -> Event:
    attributes = event.attributes or {}
    if all(_hidden(value) is value for value in attributes.values()):
        return event
    return Event(event.name, {k: _hidden(v) for k, v in attributes.items()}, event.timestamp)


def scrub(span: ReadableSpan) -> ReadableSpan:
    """``span``, or a copy of it without ``DETAIL`` values."""
    events = [_scrub_event(event) for event in span.events]
    description = span.status.description
    unchanged = all(a is b for a, b in zip(events, span.events, strict=True))
    if unchanged and _hidden(description) is description:
        return span
    return ReadableSpan(
        name=span.name,
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=span.attributes,
        events=events,
        links=span.links,
        kind=span.kind,
        status=Status(span.status.status_code, _hidden(description)),
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )
