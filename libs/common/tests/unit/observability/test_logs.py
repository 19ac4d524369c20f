"""Log lines (idp_common.observability.logs): one JSON object each, with the fixed fields,
the request id and the current trace; tracebacks redacted; Granian's lines included."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
import structlog
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from idp_common.config import load_settings
from idp_common.observability import logs
from idp_common.observability.request_context import _REQUEST_ID

ERROR = (
    'duplicate key value violates unique constraint "uq_users_email"\n'
    "DETAIL:  Key (email)=(someone@example.com) already exists."
)


@pytest.fixture
def captured(request: pytest.FixtureRequest) -> Iterator[io.StringIO]:
    """The root handler's output, in the format the test's parameter names."""
    fmt = getattr(request, "param", "json")
    root = logging.getLogger()
    handlers, level, factory = root.handlers[:], root.level, logging.getLogRecordFactory()
    logs.configure_logging(
        load_settings(env={"SVC_LOG_FORMAT": fmt, "SVC_LOG_LEVEL": "DEBUG"}), service="token"
    )
    stream = io.StringIO()
    (handler,) = root.handlers
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(stream)
    try:
        yield stream
    finally:  # the process's logging as it was, for the other tests
        root.handlers[:] = handlers
        root.setLevel(level)
        logging.setLogRecordFactory(factory)
        logging.captureWarnings(False)
        for name in logs.QUIET_LIBRARIES:
            logging.getLogger(name).setLevel(logging.NOTSET)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_line_is_one_json_object_with_the_fixed_fields(captured: io.StringIO) -> None:
    logging.getLogger("idp.test").info("hello %s", "world")
    (line,) = lines(captured)
    assert list(line)[:6] == ["timestamp", "level", "logger", "event", "service", "request_id"]
    assert line["event"] == "hello world" and line["level"] == "info"
    assert line["logger"] == "idp.test" and line["service"] == "token"
    assert line["request_id"] is None and "trace_id" not in line
    assert line["timestamp"].endswith("Z") and "T" in line["timestamp"]


def test_the_request_id_and_the_current_span_are_on_the_line(captured: io.StringIO) -> None:
    span = SpanContext(0x1234, 0x5678, is_remote=False, trace_flags=TraceFlags(1))
    token = _REQUEST_ID.set("0123456789abcdef0123456789abcdef")
    try:
        with trace.use_span(NonRecordingSpan(span)):
            logging.getLogger("idp.test").warning("inside")
    finally:
        _REQUEST_ID.reset(token)
    (line,) = lines(captured)
    assert line["request_id"] == "0123456789abcdef0123456789abcdef"
    assert line["trace_id"] == f"{0x1234:032x}" and line["span_id"] == f"{0x5678:016x}"


def test_a_traceback_is_one_field_without_the_servers_detail(captured: io.StringIO) -> None:
    try:
        raise RuntimeError(ERROR)
    except RuntimeError:
        logging.getLogger("idp.test").exception("unhandled error on %s", "POST /admin/users")
    logging.getLogger("idp.test").error("plain %s", ERROR)
    text = captured.getvalue()
    assert "someone@example.com" not in text
    first, second = lines(captured)
    assert first["event"] == "unhandled error on POST /admin/users"
    assert first["exception"].startswith("Traceback (most recent call last):")
    assert "uq_users_email" in first["exception"] and "DETAIL: (hidden)" in first["exception"]
    assert second["event"].endswith("DETAIL: (hidden)")


def test_granian_and_structlog_lines_come_out_alike(captured: io.StringIO) -> None:
    logging.getLogger("_granian").info("Spawning worker-1 with PID: 1")
    structlog.get_logger("idp.native").info("native", count=3)
    granian, native = lines(captured)
    assert granian["logger"] == "_granian" and granian["service"] == "token"
    assert native["logger"] == "idp.native" and native["count"] == 3
    assert native["request_id"] is None


def test_libraries_that_log_values_stay_at_warning(captured: io.StringIO) -> None:
    logging.getLogger("sqlalchemy.engine.Engine").info("SELECT ... [the row's values]")
    logging.getLogger("botocore.endpoint").debug("Authorization: AWS4-HMAC-SHA256 ...")
    logging.getLogger("httpx").info("HTTP Request: POST https://rp.example/logout?key=k")
    logging.getLogger("idp.test").debug("ours")
    assert [line["event"] for line in lines(captured)] == ["ours"]


@pytest.mark.parametrize("captured", ["text"], indirect=True)
def test_the_text_format_is_one_readable_line(captured: io.StringIO) -> None:
    logging.getLogger("idp.test").info("hello")
    (line,) = captured.getvalue().splitlines()
    assert "[info" in line and "hello" in line and "[idp.test]" in line
    assert "service=token" in line and not line.startswith("{")


def test_the_dict_config_is_what_granian_applies() -> None:
    config = logs.dict_config(service="admin", level="warning", fmt="json")
    assert config["root"] == {"handlers": ["stdout"], "level": "WARNING"}
    assert config["formatters"]["idp"]["()"] == "idp_common.observability.logs.formatter"
    assert config["loggers"]["_granian"] == {"handlers": [], "propagate": True}
