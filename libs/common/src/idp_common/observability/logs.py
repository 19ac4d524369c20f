"""Every log line of a service process, one JSON object (``SVC_LOG_FORMAT=json``, the
default) or one readable line (``text``), whoever logs it.

structlog renders, over the standard library's logging: one handler on the root logger
(stdout) formats every record with a :class:`structlog.stdlib.ProcessorFormatter`, so the
services' ``logging.getLogger(...)`` calls, the libraries' loggers, Granian's own lines
(``_granian``, given the same configuration through ``idp serve``: :func:`dict_config`)
and structlog's loggers all come out alike. Each line carries ``timestamp`` (UTC, ISO
8601), ``level``, ``logger``, ``event``, ``service``, ``request_id`` (None outside a
request: start-up, the relay, the consumer) and, when a span is current, ``trace_id`` and
``span_id``; an exception is one ``exception`` field.

What stays out: access lines (Granian's are off: query strings carry ``id_token_hint``),
PostgreSQL's ``DETAIL`` values (:mod:`.log_redaction`, applied to the message and to the
traceback here, since the traceback is formatted again from the exception), and
whatever the code never logs (secrets, codes, tokens, passwords).
"""

from __future__ import annotations

import logging
import logging.config
from datetime import UTC, datetime
from typing import Any, Final

import structlog
from opentelemetry import trace
from structlog.typing import EventDict, Processor, WrappedLogger

from idp_common.config import Settings
from idp_common.observability import log_redaction
from idp_common.observability.request_context import current_request_id

__all__ = ["configure_logging", "dict_config", "formatter"]

#: Loggers that keep handlers of their own unless told otherwise: Granian's.
_GRANIAN_LOGGERS: Final = ("_granian", "granian.access")
#: Libraries that log values at DEBUG or INFO, held at WARNING whatever ``SVC_LOG_LEVEL``
#: says: SQLAlchemy's engine logs statements and result rows (password hashes, emails,
#: token digests), botocore its signed requests, httpx every URL it calls (a registered
#: back-channel URI may carry a key in its query), urllib3 the exporter's calls.
QUIET_LIBRARIES: Final = (
    "sqlalchemy",
    "botocore",
    "boto3",
    "aiobotocore",
    "aioboto3",
    "s3transfer",
    "httpx",
    "httpcore",
    "urllib3",
)
_TRACEBACKS: Final = logging.Formatter()


def _timestamp(_: WrappedLogger, __: str, event: EventDict) -> EventDict:
    """When the record was made (not when it was formatted), UTC, milliseconds."""
    record = event.get("_record")
    moment = datetime.fromtimestamp(record.created, UTC) if record else datetime.now(UTC)
    event["timestamp"] = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return event


def _context(service: str) -> Processor:
    def add(_: WrappedLogger, __: str, event: EventDict) -> EventDict:
        event["service"] = service
        event["request_id"] = current_request_id()
        span = trace.get_current_span().get_span_context()
        if span.is_valid:
            event["trace_id"] = format(span.trace_id, "032x")
            event["span_id"] = format(span.span_id, "016x")
        return event

    return add


def _exception(_: WrappedLogger, __: str, event: EventDict) -> EventDict:
    """The traceback as one redacted field (never the raw exception's DETAIL line)."""
    record: logging.LogRecord | None = event.get("_record")
    exc_info = event.pop("exc_info", None)
    text = record.exc_text if record is not None else None
    if not text and exc_info:
        if exc_info is True:
            exc_info = None
        elif isinstance(exc_info, BaseException):
            exc_info = (type(exc_info), exc_info, exc_info.__traceback__)
        text = _TRACEBACKS.formatException(exc_info) if exc_info else None
    if text:
        event["exception"] = log_redaction.redact(text)
    message = event.get("event")
    if isinstance(message, str) and "DETAIL:" in message:
        event["event"] = log_redaction.redact(message)
    return event


_FIRST: Final = ("timestamp", "level", "logger", "event", "service", "request_id")


def _in_order(_: WrappedLogger, __: str, event: EventDict) -> EventDict:
    """The fixed fields first, in one order, on every line (easier on a person's eyes)."""
    return {**{key: event[key] for key in _FIRST if key in event}, **event}


def _shared_chain(service: str) -> list[Processor]:
    return [
        _timestamp,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        _context(service),
        _exception,
    ]


def formatter(service: str, fmt: str = "json") -> structlog.stdlib.ProcessorFormatter:
    """The one formatter of every line (``dict_config`` names it by this path)."""
    renderer: Processor = (
        structlog.processors.JSONRenderer(default=str)
        if fmt == "json"
        # the traceback arrives as the ``exception`` string, printed below the line
        else structlog.dev.ConsoleRenderer(
            colors=False, exception_formatter=structlog.dev.plain_traceback
        )
    )
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_shared_chain(service),
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            _in_order,
            renderer,
        ],
    )


def dict_config(*, service: str, level: str, fmt: str) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` of a service process (Granian's master applies it
    through ``log_dictconfig``, each worker again before the app is built)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "idp": {"()": f"{__name__}.formatter", "service": service, "fmt": fmt},
        },
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "formatter": "idp",
                "stream": "ext://sys.stdout",
            }
        },
        "root": {"handlers": ["stdout"], "level": level.upper()},
        "loggers": {
            **{name: {"handlers": [], "propagate": True} for name in _GRANIAN_LOGGERS},
            **{name: {"level": "WARNING"} for name in QUIET_LIBRARIES},
        },
    }


def configure_logging(settings: Settings, *, service: str) -> None:
    """Route every log line of this process through the formatter (idempotent)."""
    logging.config.dictConfig(
        dict_config(service=service, level=settings.log_level, fmt=settings.log_format)
    )
    logging.captureWarnings(True)  # a library's warning is a log line too
    log_redaction.install()  # PostgreSQL's DETAIL lines carry stored values
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *_shared_chain(service),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
