"""Keeping stored values out of the log (docs/security.md, attack 13).

SQLAlchemy's ``hide_parameters`` keeps a failed statement's parameters out of its error
message, but PostgreSQL's own ``DETAIL`` line still travels in the driver's message: a
check or not-null violation says ``Failing row contains (...)`` with the whole row (a
password hash, an email), a unique violation ``Key (email)=(...) already exists``.
:func:`install` makes every log record of the process pass through :func:`redact_record`
as it is created (the record factory: whatever handlers Granian or an operator configures),
which replaces such lines in the message and in the formatted traceback by
``DETAIL: (hidden)``. The error's kind, its constraint and table, and the stack stay, which
is what an operator needs.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final

__all__ = ["RedactDetails", "install", "redact", "redact_record"]

_DETAIL: Final = re.compile(r"(DETAIL:)[^\n]*")
_FORMATTER: Final = logging.Formatter()


def redact(text: str) -> str:
    """``text`` with every ``DETAIL:`` line's content hidden."""
    return _DETAIL.sub(r"\1 (hidden)", text)


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """Hide ``DETAIL:`` lines in ``record``'s message and traceback."""
    if isinstance(record.msg, dict):  # a structlog event: its formatter redacts it
        return record
    message = record.getMessage()
    if "DETAIL:" in message:
        record.msg, record.args = redact(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = _FORMATTER.formatException(record.exc_info)
    if record.exc_text and "DETAIL:" in record.exc_text:
        record.exc_text = redact(record.exc_text)
    return record


class RedactDetails(logging.Filter):
    """:func:`redact_record` as a handler filter (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


def install() -> None:
    """Every record created from now on in this process is redacted (idempotent)."""
    current = logging.getLogRecordFactory()
    if getattr(current, "_redacts", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        return redact_record(current(*args, **kwargs))

    factory._redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
