"""One profile value: validated and converted at the edges (contract §2 rules 6 and 10).

A value is stored as text. On the wire it is typed: ``integer`` a JSON integer,
``boolean`` a JSON boolean (stored ``true``/``false``), ``date`` an ISO ``YYYY-MM-DD``
string, every other type a string. :func:`to_text` raises :class:`ValueError` with a
message for the field (the caller names the field by its key).
"""

from __future__ import annotations

import re
from typing import Any, Final, Protocol
from urllib.parse import urlsplit

import regex

from idp_common.profile_fields.rules import MAX_VALUE_LENGTH, parse_date
from idp_common.profile_fields.schema import Validators
from idp_common.protocol.email_address import email_problem

#: E.164-ish: an optional +, then digits, spaces, parentheses and hyphens.
PHONE: Final = re.compile(r"\+?[0-9 ()-]{5,32}")
#: Integers are kept within 64 bits so that every consumer can read them.
INT_RANGE: Final = range(-(2**63), 2**63)
#: An administrator's ``pattern`` runs on values people send; one with catastrophic
#: backtracking (``(a|aa)+$``) must not hold the event loop, so matching is cut off.
PATTERN_TIMEOUT_SECONDS: Final = 0.02


class FieldRules(Protocol):
    """What validating a value needs of its field."""

    @property
    def data_type(self) -> str: ...
    @property
    def validators(self) -> Validators: ...
    @property
    def enum_values(self) -> list[str] | None: ...


def _text_checks(text: str, v: Validators) -> str:
    if len(text) > MAX_VALUE_LENGTH:
        raise ValueError(f"is longer than {MAX_VALUE_LENGTH} characters")
    if v.min_length is not None and len(text) < v.min_length:
        raise ValueError(f"is shorter than {v.min_length} characters")
    if v.max_length is not None and len(text) > v.max_length:
        raise ValueError(f"is longer than {v.max_length} characters")
    if v.pattern is not None and not _matches(v.pattern, text):
        raise ValueError(f"does not match the pattern {v.pattern}")
    return text


def _matches(pattern: str, text: str) -> bool:
    """Full match with the ``regex`` module (a superset of ``re`` with a time limit); a
    value that takes too long to decide does not match."""
    try:
        return regex.fullmatch(pattern, text, timeout=PATTERN_TIMEOUT_SECONDS) is not None
    except TimeoutError:
        return False


def _string_of(raw: Any, data_type: str) -> str:
    if not isinstance(raw, str):
        raise ValueError(f"must be a string ({data_type})")
    if "\x00" in raw:  # PostgreSQL text cannot hold it: refused here, not as a 500
        raise ValueError("must not contain the NUL character")
    return raw


def _shaped(data_type: str, text: str) -> str:
    """The syntax of ``email``, ``phone`` and ``url`` values."""
    if data_type == "email" and email_problem(text):
        raise ValueError("is not an email address")
    if data_type == "phone" and not (PHONE.fullmatch(text) and sum(c.isdigit() for c in text) >= 5):
        raise ValueError("is not a phone number (digits, optional +, spaces, ( ) -)")
    if data_type == "url":
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname or re.search(r"\s", text):
            raise ValueError("is not an absolute http(s) URL")
    return text


def _integer(raw: Any, v: Validators) -> str:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ValueError("must be an integer")
    if raw not in INT_RANGE:
        raise ValueError("is out of the 64-bit integer range")
    if isinstance(v.min, int) and raw < v.min:
        raise ValueError(f"must be at least {v.min}")
    if isinstance(v.max, int) and raw > v.max:
        raise ValueError(f"must be at most {v.max}")
    return str(raw)


def _date(raw: Any, v: Validators) -> str:
    day = parse_date(raw) if isinstance(raw, str) else None
    if day is None:
        raise ValueError("must be a date YYYY-MM-DD")
    if isinstance(v.min, str) and day < (parse_date(v.min) or day):
        raise ValueError(f"must not be before {v.min}")
    if isinstance(v.max, str) and day > (parse_date(v.max) or day):
        raise ValueError(f"must not be after {v.max}")
    return day.isoformat()


def to_text(field: FieldRules, raw: Any) -> str:
    """The stored text of ``raw`` (a decoded JSON value), or ValueError saying why not."""
    kind = field.data_type
    if kind == "integer":
        return _integer(raw, field.validators)
    if kind == "boolean":
        if not isinstance(raw, bool):
            raise ValueError("must be true or false")
        return "true" if raw else "false"
    if kind == "date":
        return _date(raw, field.validators)
    text = _string_of(raw, kind)
    if kind == "enum":
        if text not in (field.enum_values or ()):
            raise ValueError(f"must be one of {', '.join(field.enum_values or ())}")
        return text
    return _text_checks(_shaped(kind, text), field.validators)


def from_text(data_type: str, text: str) -> Any:
    """The wire value of stored ``text`` (the inverse of :func:`to_text`)."""
    if data_type == "integer":
        try:
            return int(text)
        except ValueError:
            return text
    if data_type == "boolean":
        return text == "true"
    return text
