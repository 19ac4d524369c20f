"""Pure rules of profile fields (contract §2): keys, labels, validators, enums, claims."""

from __future__ import annotations

import msgspec
import pytest

from idp_common.profile_fields import rules
from idp_common.profile_fields.schema import (
    ProfileFieldCreate,
    ProfileFieldUpdate,
    Validators,
)
from libs.common.tests.unit.profile_field_rules.support import (
    NOT_TEXT,
    TEXT,
    field,
    fields_of,
)


@pytest.mark.parametrize("key", ["a", "employee_number", "x1", "a" + "b" * 62])
def test_good_keys(key: str) -> None:
    assert rules.check_key(key) == []


@pytest.mark.parametrize("key", ["", "A", "1a", "_a", "a-b", "a b", "é", "a" * 64])
def test_bad_keys(key: str) -> None:
    assert fields_of(rules.check_key(key)) == ["key"]


@pytest.mark.parametrize("label", ["", "   ", "x" * 201])
def test_bad_labels(label: str) -> None:
    assert fields_of(rules.check_label(label)) == ["label"]


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


@pytest.mark.parametrize("values", [None, [], ["a", "a"], ["a", ""], ["x"] * 201])
def test_enum_needs_unique_non_empty_values(values: list[str] | None) -> None:
    assert fields_of(rules.check_enum_values("enum", values)) == ["enumValues"]


def test_enum_values_only_for_enum() -> None:
    assert rules.check_enum_values("enum", ["red", "green"]) == []
    assert rules.check_enum_values("string", None) == []
    assert fields_of(rules.check_enum_values("string", ["a"])) == ["enumValues"]


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
