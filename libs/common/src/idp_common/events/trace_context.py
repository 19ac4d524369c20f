"""An event's trace, from the request that wrote it to the consumer that handles it
(W3C Trace Context; docs/operations.md "Traces and logs").

1. The writer keeps :func:`current_traceparent` with the outbox row
   (``event_outbox.traceparent``), in the transaction that writes the event.
2. The relay publishes the row inside :func:`publishing`: a producer span, child of the
   writer's, whose context travels as the message's ``traceparent`` header.
3. The consumer handles the message inside :func:`consuming`: a consumer span, child of
   the producer's, under which its database statements and HTTP calls are traced.

Only the OpenTelemetry API is used: in a process without tracing (no
``OTEL_EXPORTER_OTLP_ENDPOINT``) the spans are the API's no-op ones, nothing is recorded,
and the header still forwards the writer's ``traceparent`` unchanged, so a traced consumer
continues the trace of a traced writer through an untraced relay.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Final

from opentelemetry import trace
from opentelemetry.instrumentation.utils import suppress_instrumentation
from opentelemetry.trace import SpanKind
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

__all__ = ["TRACEPARENT", "consuming", "current_traceparent", "publishing", "untraced"]

TRACEPARENT: Final = "traceparent"
_W3C: Final = TraceContextTextMapPropagator()
_tracer = trace.get_tracer("idp_common.events")  # the process's provider, once it has one


def current_traceparent() -> str | None:
    """The ``traceparent`` of the span current here; None when nothing is traced."""
    carrier: dict[str, str] = {}
    _W3C.inject(carrier)
    return carrier.get(TRACEPARENT)


def _messaging(subject: str, operation: str) -> dict[str, str]:
    return {
        "messaging.system": "nats",
        "messaging.destination.name": subject,
        "messaging.operation.type": operation,
    }


@contextmanager
def publishing(subject: str, traceparent: str | None) -> Iterator[dict[str, str]]:
    """The headers that carry the writer's trace (``{}`` when it was not traced), inside
    a producer span of it."""
    if not traceparent:
        yield {}
        return
    parent = _W3C.extract({TRACEPARENT: traceparent})
    with _tracer.start_as_current_span(
        f"publish {subject}",
        context=parent,
        kind=SpanKind.PRODUCER,
        attributes=_messaging(subject, "send"),
    ):
        yield {TRACEPARENT: current_traceparent() or traceparent}


@contextmanager
def consuming(name: str, subject: str, headers: Mapping[str, str] | None) -> Iterator[trace.Span]:
    """A consumer span named ``name``, child of the trace the message's headers carry
    (a trace of its own when they carry none)."""
    parent = _W3C.extract(dict(headers or {}))
    with _tracer.start_as_current_span(
        name, context=parent, kind=SpanKind.CONSUMER, attributes=_messaging(subject, "process")
    ) as span:
        yield span


@contextmanager
def untraced() -> Iterator[None]:
    """No instrumentation records what runs here (tasks created here inherit it); spans
    started explicitly (:func:`publishing`) still are."""
    with suppress_instrumentation():
        yield
