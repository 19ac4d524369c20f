"""Properties of profile value conversion (contract §2 rules 6 and 10,
``idp_common.profile_fields.values``): any decoded JSON value is stored text or a
``ValueError`` saying why, never another exception; a value that is stored reads back
as itself (``from_text`` is the inverse of ``to_text``)."""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idp_common.profile_fields.rules import MAX_VALUE_LENGTH
from idp_common.profile_fields.schema import NO_VALIDATORS, Validators
from idp_common.profile_fields.values import INT_RANGE, from_text, to_text
from libs.common.tests.unit.properties.support import FAST

TYPES = ["string", "integer", "boolean", "date", "enum", "email", "phone", "url"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@dataclass(frozen=True)
class Field:
    data_type: str
    validators: Validators = NO_VALIDATORS
    enum_values: list[str] | None = field(default=None)


@FAST
@given(st.sampled_from(TYPES), JSON | st.integers(-(2**70), 2**70) | st.dates().map(str))
def test_any_value_is_stored_text_or_a_value_error(data_type: str, raw: Any) -> None:
    rules = Field(data_type, enum_values=["a", "b"] if data_type == "enum" else None)
    try:
        text = to_text(rules, raw)
    except ValueError:
        return
    assert isinstance(text, str) and len(text) <= max(MAX_VALUE_LENGTH, 20)
    assert from_text(data_type, text) == raw


@FAST
@given(st.integers())
def test_an_integer_is_kept_within_64_bits(value: int) -> None:
    if value in INT_RANGE:
        assert from_text("integer", to_text(Field("integer"), value)) == value
    else:
        with pytest.raises(ValueError, match="64-bit"):
            to_text(Field("integer"), value)


@FAST
@given(st.dates())
def test_a_date_round_trips_and_nothing_else_is_a_date(day: date) -> None:
    assert to_text(Field("date"), day.isoformat()) == day.isoformat()
    for other in (day.isoformat() + " ", day.strftime("%d.%m.%Y"), day.toordinal()):
        with pytest.raises(ValueError):
            to_text(Field("date"), other)


@FAST
@given(st.text(max_size=60))
def test_an_accepted_url_is_absolute_http(text: str) -> None:
    try:
        stored = to_text(Field("url"), text)
    except ValueError:
        return
    parts = urlsplit(stored)
    assert parts.scheme in ("http", "https") and parts.hostname
    assert not re.search(r"\s", stored)


@FAST
@given(st.text(max_size=40))
def test_an_accepted_phone_has_five_digits_of_the_allowed_characters(text: str) -> None:
    try:
        stored = to_text(Field("phone"), text)
    except ValueError:
        return
    assert re.fullmatch(r"\+?[0-9 ()-]{5,32}", stored)
    assert sum(c.isdigit() for c in stored) >= 5


@FAST
@given(st.text(alphabet="a!", min_size=20, max_size=40))
def test_a_catastrophic_pattern_is_cut_off_not_hung(text: str) -> None:
    rules = Field("string", Validators(pattern="(a|aa)+$"))
    started = time.monotonic()
    with contextlib.suppress(ValueError):
        to_text(rules, text)
    assert time.monotonic() - started < 1.0


@FAST
@given(
    st.sampled_from(["string", "email", "phone", "url"]), st.text(max_size=30), st.text(max_size=30)
)
def test_an_accepted_value_can_be_stored_in_postgresql_text(
    data_type: str, before: str, after: str
) -> None:
    """PostgreSQL ``text`` cannot hold U+0000: a value with a NUL is refused here, with a
    ValueError naming the field, not by the database as a server error."""
    raw = f"{before}\x00{after}"
    with pytest.raises(ValueError, match="NUL"):
        to_text(Field(data_type), raw)
