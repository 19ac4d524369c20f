"""An OTLP/HTTP trace receiver in the test process: what a collector is to the services.

A real HTTP server on 127.0.0.1 (a thread of its own) accepting ``POST /v1/traces`` with
an ``ExportTraceServiceRequest`` in protobuf (``opentelemetry-proto``), as the services'
OTLP exporter sends it, and keeping every span it decodes as a :class:`ReceivedSpan`.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

KIND = {
    Span.SPAN_KIND_INTERNAL: "internal",
    Span.SPAN_KIND_SERVER: "server",
    Span.SPAN_KIND_CLIENT: "client",
    Span.SPAN_KIND_PRODUCER: "producer",
    Span.SPAN_KIND_CONSUMER: "consumer",
}


@dataclass(frozen=True)
class ReceivedSpan:
    service: str
    name: str
    kind: str
    trace_id: str  # hex
    span_id: str
    parent_id: str  # "" for a root
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]

    def text(self) -> str:
        """Every value the span carries, for looking for what must not be there."""
        values = [self.name, *map(str, self.attributes.values())]
        values += [str(v) for _, attributes in self.events for v in attributes.values()]
        return "\n".join(values)


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def _attributes(pairs: Iterable[KeyValue]) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def decode(body: bytes) -> list[ReceivedSpan]:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        service = str(_attributes(resource_spans.resource.attributes).get("service.name", ""))
        for scope_spans in resource_spans.scope_spans:
            spans.extend(
                ReceivedSpan(
                    service=service,
                    name=span.name,
                    kind=KIND.get(span.kind, "unspecified"),
                    trace_id=span.trace_id.hex(),
                    span_id=span.span_id.hex(),
                    parent_id=span.parent_span_id.hex(),
                    attributes=_attributes(span.attributes),
                    events=[(e.name, _attributes(e.attributes)) for e in span.events],
                )
                for span in scope_spans.spans
            )
    return spans


class OtlpReceiver:
    """``with OtlpReceiver() as receiver:`` listens on ``receiver.endpoint``."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.requests = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        """The value of ``OTEL_EXPORTER_OTLP_ENDPOINT`` (the exporter adds ``/v1/traces``)."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces":
                    self.send_response(404)
                    self.end_headers()
                    return
                spans = decode(body)
                with receiver._lock:
                    receiver.spans.extend(spans)
                    receiver.requests += 1
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *_: Any) -> None:  # keep the test output quiet
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def snapshot(self) -> list[ReceivedSpan]:
        with self._lock:
            return list(self.spans)

    def wait_for(
        self, found: Callable[[list[ReceivedSpan]], bool], timeout: float = 30.0
    ) -> list[ReceivedSpan]:
        """Every span received, once ``found(spans)`` holds (or after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.snapshot()
            if found(spans) or time.monotonic() > deadline:
                return spans
            time.sleep(0.1)

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        return [span for span in self.snapshot() if span.trace_id == trace_id]
