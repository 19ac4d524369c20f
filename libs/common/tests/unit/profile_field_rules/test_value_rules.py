"""Pure rules of profile values (contract §2): each data type, patterns cut off, bounds."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from idp_common.profile_fields import rules
from idp_common.profile_fields.schema import (
    Validators,
)
from idp_common.profile_fields.values import from_text, to_text
from libs.common.tests.unit.profile_field_rules.support import (
    field,
    refused,
)


def test_string_values() -> None:
    f = field("string", min_length=2, max_length=4, pattern="[a-z]+")
    assert to_text(f, "abc") == "abc"
    assert "shorter" in refused(f, "a")
    assert "longer" in refused(f, "abcde")
    assert "pattern" in refused(f, "AB")
    assert "pattern" in refused(field("string", pattern="[a-z]+"), "ab1")  # the whole value
    assert "string" in refused(f, 12)
    assert "longer" in refused(field("string"), "x" * (rules.MAX_VALUE_LENGTH + 1))


def test_integer_values() -> None:
    f = field("integer", min=1, max=10)
    assert to_text(f, 10) == "10"
    assert from_text("integer", "10") == 10
    assert "at least" in refused(f, 0)
    assert "at most" in refused(f, 11)
    for bad in ("5", 5.5, True, None, 2**63):
        refused(f, bad)


def test_boolean_values() -> None:
    f = field("boolean")
    assert to_text(f, True) == "true"
    assert to_text(f, False) == "false"
    assert from_text("boolean", "true") is True
    assert from_text("boolean", "false") is False
    for bad in ("true", 1, 0):
        assert "true or false" in refused(f, bad)


def test_date_values() -> None:
    f = field("date", min="2000-01-01", max="2000-12-31")
    assert to_text(f, "2000-02-29") == "2000-02-29"
    assert from_text("date", "2000-02-29") == "2000-02-29"
    assert "before" in refused(f, "1999-12-31")
    assert "after" in refused(f, "2001-01-01")
    for bad in ("2000-02-30", "20000101", "2000-1-1", 20000101, "2000-01-01T00:00:00"):
        assert "YYYY-MM-DD" in refused(f, bad)


def test_enum_values() -> None:
    f = field("enum", enum_values=["red", "green"])
    assert to_text(f, "red") == "red"
    assert "one of red, green" in refused(f, "blue")
    assert "one of" in refused(f, "Red")
    refused(f, 1)


def test_email_values() -> None:
    f = field("email", max_length=20, pattern=r".*@example\.com")
    assert to_text(f, "a@example.com") == "a@example.com"
    for bad in ("a", "a@", "@example.com", "a@example", "a b@example.com", "a@@example.com"):
        assert "email" in refused(f, bad), bad
    assert "longer" in refused(f, "abcdefghij@example.com")
    assert "pattern" in refused(f, "a@example.org")


def test_phone_values() -> None:
    f = field("phone", min_length=8)
    assert to_text(f, "+41 (0)44 123-45-67") == "+41 (0)44 123-45-67"
    for bad in ("12", "phone", "+41-44-12x", "+" + "1" * 40, "(((( ))))"):
        assert "phone" in refused(f, bad), bad
    assert "shorter" in refused(f, "+41 123")


def test_url_values() -> None:
    f = field("url", pattern=r"https://.*")
    assert to_text(f, "https://example.com/x?y=1") == "https://example.com/x?y=1"
    for bad in ("example.com", "ftp://example.com", "javascript:alert(1)", "https://", "http:// x"):
        assert "URL" in refused(f, bad), bad
    assert "pattern" in refused(f, "http://example.com")


def test_a_backtracking_pattern_is_cut_off_not_run_to_the_end() -> None:
    # (a|aa)+$ takes exponential time on a long run of "a" followed by "!": the value is
    # refused after the time limit instead of holding the event loop.
    f = field("string", pattern="(a|aa)+")
    start = datetime.now(UTC)
    with pytest.raises(ValueError, match="pattern"):
        to_text(f, "a" * 40 + "!")
    assert (datetime.now(UTC) - start).total_seconds() < 1
    assert to_text(f, "aaaa") == "aaaa"


def test_bounds_are_integers_or_dates_never_fractions() -> None:
    assert msgspec.json.decode(b'{"min": 1, "max": "2030-01-01"}', type=Validators) == Validators(
        min=1, max="2030-01-01"
    )
    with pytest.raises(msgspec.ValidationError, match="min"):
        msgspec.json.decode(b'{"min": 1.5}', type=Validators)
