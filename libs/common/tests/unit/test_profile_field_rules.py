"""Pure rules of profile fields and values (spec part 2 "Profile field"; issue 4
acceptance 2): each dataType with each validator, the definition rules 1, 3 and 8."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from idp_common.errors import FieldError
from idp_common.profile_fields import rules
from idp_common.profile_fields.presets import PRESETS
from idp_common.profile_fields.schema import (
    ProfileFieldCreate,
    ProfileFieldRead,
    ProfileFieldUpdate,
    Validators,
)
from idp_common.profile_fields.values import from_text, to_text


def field(data_type: str, enum_values: list[str] | None = None, **validators: Any) -> Any:
    now = datetime.now(UTC)
    return ProfileFieldRead(
        id=uuid.uuid4(),
        key="f",
        label="F",
        data_type=data_type,  # type: ignore[arg-type]
        required=False,
        unique=False,
        user_readable=True,
        user_writable=False,
        validators=Validators(**validators),
        enum_values=enum_values,
        display_order=1,
        group_id=None,
        claim_name=None,
        claim_scope=None,
        created_at=now,
        updated_at=now,
    )


def fields_of(errors: list[FieldError]) -> list[str]:
    return [e.field for e in errors]


# --- key, label -------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["a", "employee_number", "x1", "a" + "b" * 62])
def test_good_keys(key: str) -> None:
    assert rules.check_key(key) == []


@pytest.mark.parametrize("key", ["", "A", "1a", "_a", "a-b", "a b", "é", "a" * 64])
def test_bad_keys(key: str) -> None:
    assert fields_of(rules.check_key(key)) == ["key"]


@pytest.mark.parametrize("label", ["", "   ", "x" * 201])
def test_bad_labels(label: str) -> None:
    assert fields_of(rules.check_label(label)) == ["label"]


# --- validators per data type -----------------------------------------------------------

TEXT = ["string", "email", "phone", "url"]
NOT_TEXT = ["integer", "boolean", "date", "enum"]


@pytest.mark.parametrize("data_type", TEXT)
def test_text_validators_apply_to_text_types(data_type: str) -> None:
    v = Validators(pattern="[a-z]+", min_length=1, max_length=5)
    assert rules.check_validators(data_type, v) == []


@pytest.mark.parametrize("data_type", NOT_TEXT)
@pytest.mark.parametrize(
    ("name", "v"),
    [
        ("pattern", Validators(pattern="x")),
        ("minLength", Validators(min_length=1)),
        ("maxLength", Validators(max_length=1)),
    ],
)
def test_text_validators_refused_elsewhere(data_type: str, name: str, v: Validators) -> None:
    assert fields_of(rules.check_validators(data_type, v)) == [f"validators.{name}"]


@pytest.mark.parametrize("data_type", [*TEXT, "boolean", "enum"])
@pytest.mark.parametrize("name", ["min", "max"])
def test_range_validators_refused_on_unordered_types(data_type: str, name: str) -> None:
    v = Validators(**{name: 1})
    assert fields_of(rules.check_validators(data_type, v)) == [f"validators.{name}"]


def test_integer_bounds_are_numbers() -> None:
    assert rules.check_validators("integer", Validators(min=0, max=10.5)) == []
    v = Validators(min="2020-01-01")
    assert fields_of(rules.check_validators("integer", v)) == ["validators.min"]


def test_date_bounds_are_iso_dates() -> None:
    assert rules.check_validators("date", Validators(min="1900-01-01", max="2100-12-31")) == []
    for bad in (1, "2020-13-01", "20200101", "yesterday"):
        found = rules.check_validators("date", Validators(max=bad))
        assert fields_of(found) == ["validators.max"], bad


@pytest.mark.parametrize(
    ("data_type", "v", "named"),
    [
        ("integer", Validators(min=5, max=4), "validators.min"),
        ("date", Validators(min="2020-01-02", max="2020-01-01"), "validators.min"),
        ("string", Validators(min_length=5, max_length=4), "validators.minLength"),
        ("string", Validators(max_length=-1), "validators.maxLength"),
        ("string", Validators(min_length=99999), "validators.minLength"),
    ],
)
def test_inconsistent_bounds(data_type: str, v: Validators, named: str) -> None:
    assert fields_of(rules.check_validators(data_type, v)) == [named]


def test_pattern_must_compile_and_be_bounded() -> None:
    assert fields_of(rules.check_validators("string", Validators(pattern="(a"))) == [
        "validators.pattern"
    ]
    long = Validators(pattern="a" * (rules.MAX_PATTERN_LENGTH + 1))
    assert fields_of(rules.check_validators("string", long)) == ["validators.pattern"]


def test_unknown_validator_is_refused_by_the_struct() -> None:
    with pytest.raises(msgspec.ValidationError, match="regex"):
        msgspec.convert({"regex": "x"}, Validators)


# --- enumValues (rule 8) ----------------------------------------------------------------


@pytest.mark.parametrize("values", [None, [], ["a", "a"], ["a", ""], ["x"] * 201])
def test_enum_needs_unique_non_empty_values(values: list[str] | None) -> None:
    assert fields_of(rules.check_enum_values("enum", values)) == ["enumValues"]


def test_enum_values_only_for_enum() -> None:
    assert rules.check_enum_values("enum", ["red", "green"]) == []
    assert rules.check_enum_values("string", None) == []
    assert fields_of(rules.check_enum_values("string", ["a"])) == ["enumValues"]


# --- claims (rules 1 and 3) ---------------------------------------------------------------


def test_claim_pair() -> None:
    assert rules.check_claim(None, None) == []
    assert rules.check_claim("department", "profile") == []
    assert fields_of(rules.check_claim("department", None)) == ["claimScope"]
    assert fields_of(rules.check_claim(None, "profile")) == ["claimName"]


@pytest.mark.parametrize(
    "name", ["sub", "ISS", "Aud", "acr", "sid", "email", "picture", "_claim_names", "nonce"]
)
def test_reserved_claim_names_refused_case_insensitively(name: str) -> None:
    found = rules.check_claim(name, "profile")
    assert fields_of(found) == ["claimName"]
    assert "reserved" in found[0].message


@pytest.mark.parametrize("name", ["given_name", "phone_number", "https://example.com/dept"])
def test_mappable_claim_names(name: str) -> None:
    expected = [] if "/" not in name else ["claimName"]  # a URL claim name is not claim-shaped
    assert fields_of(rules.check_claim(name, "profile")) == expected


def test_check_create_collects_every_error() -> None:
    body = ProfileFieldCreate(
        key="Bad", label="", data_type="integer", validators=Validators(pattern="x"), claim_name="x"
    )
    assert fields_of(rules.check_create(body)) == [
        "key",
        "label",
        "validators.pattern",
        "claimScope",
    ]


def test_update_is_checked_on_the_merged_field() -> None:
    stored = msgspec.structs.replace(field("string"), claim_name="dept", claim_scope="profile")
    unmap = ProfileFieldUpdate(claim_name=None)
    merged = rules.merge_update(stored, unmap)
    assert fields_of(rules.check_update(merged, unmap)) == ["claimName"]
    both = ProfileFieldUpdate(claim_name=None, claim_scope=None)
    assert rules.check_update(rules.merge_update(stored, both), both) == []
    assert rules.given_members(both) == ["claimName", "claimScope"]


def test_presets_pass_the_rules() -> None:
    keys = [p.key for p in PRESETS]
    assert len(set(keys)) == len(keys)
    for preset in PRESETS:
        assert rules.check_create(preset) == [], preset.key


# --- values per data type and validator ---------------------------------------------------


def refused(f: Any, raw: Any) -> str:
    with pytest.raises(ValueError) as info:
        to_text(f, raw)
    return str(info.value)


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
