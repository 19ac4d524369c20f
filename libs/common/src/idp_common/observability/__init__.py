"""What an operator watches a service by: log lines, traces and metrics
(docs/operations.md "Traces and logs", "Metrics").

- :mod:`.logs`: every log line of a service process, its own, Granian's and the
  libraries', one JSON object (or one readable line), with the service, the request id and
  the current trace.
- :mod:`.request_context`: the request id of each request (the proxy's ``X-Request-Id``),
  and the name of its server span.
- :mod:`.tracing`: OpenTelemetry traces, exported over OTLP/HTTP only when
  ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set; :mod:`.tracing_sdk`, the SDK side, is loaded
  only then.
- :mod:`.metrics`: every Prometheus family the services count, its labels, the switch
  (``SVC_METRICS_ENABLED``); :mod:`.multiprocess`: a replica's multiprocess directory and
  its dead workers. ``GET /metrics`` and the request counter are wired in
  ``idp_common.web``; a layer below that counts through what it is handed (the rate
  limiter takes its refusal counter as an argument).

The trace context an event carries from its writer to its consumer lives beside the
events (``idp_common.events.trace_context``).

- :mod:`.log_redaction`: PostgreSQL's ``DETAIL`` values hidden in every log record.

Layer: below ``idp_common.web``, which wires it into every service; above the use cases;
imports only ``idp_common.config`` of the project (``pyproject.toml``, import-linter).
"""
