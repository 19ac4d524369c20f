"""Pure checks of a profile field definition (contract §2 rules 1, 3, 6, 8; docs/design.md
"Profile fields"). Each returns the list of :class:`FieldError` naming the member of the
body at fault (``validators.<name>`` for a validator); existence and uniqueness against
stored rows are the repository's business.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Final

import msgspec
import regex
from msgspec import UNSET

from idp_common.errors import FieldError
from idp_common.profile_fields.schema import (
    Bound,
    ProfileFieldCreate,
    ProfileFieldRead,
    ProfileFieldUpdate,
    Validators,
)
from idp_common.protocol.constants import RESERVED_CLAIM_NAMES

KEY_PATTERN: Final = re.compile(r"[a-z][a-z0-9_]{0,62}")
CLAIM_NAME_PATTERN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,99}")
ISO_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
MAX_LABEL_LENGTH: Final = 200
MAX_PATTERN_LENGTH: Final = 500
#: Longest value of any field, in characters (bounds ``maxLength`` too).
MAX_VALUE_LENGTH: Final = 2048
MAX_ENUM_VALUES: Final = 200

#: Types whose values are text with a length (``pattern``, ``minLength``, ``maxLength``).
TEXT_TYPES: Final = frozenset({"string", "email", "phone", "url"})
#: Types with an order (``min``, ``max``: numbers for integer, ISO dates for date).
RANGED_TYPES: Final = frozenset({"integer", "date"})

#: docs/design.md: JWT registered claims, OIDC protocol claims and the claims the provider
#: releases itself; compared case-insensitively (one list, in the protocol constants).
RESERVED_CLAIMS: Final = RESERVED_CLAIM_NAMES


def check_key(key: str) -> list[FieldError]:
    if KEY_PATTERN.fullmatch(key):
        return []
    return [FieldError("key", "must match ^[a-z][a-z0-9_]{0,62}$")]


def check_label(label: str) -> list[FieldError]:
    if not label.strip():
        return [FieldError("label", "is required")]
    if len(label) > MAX_LABEL_LENGTH:
        return [FieldError("label", f"is longer than {MAX_LABEL_LENGTH} characters")]
    return []


def parse_date(text: str) -> date | None:
    """``YYYY-MM-DD`` (and nothing else) as a date; None when it is not one."""
    if not ISO_DATE.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _bound(data_type: str, name: str, value: Bound) -> tuple[list[FieldError], int]:
    """The bound as a number (a date as its ordinal), or the error naming it."""
    field = f"validators.{name}"
    if data_type == "date":
        parsed = parse_date(value) if isinstance(value, str) else None
        if parsed is None:
            return [FieldError(field, "must be an ISO date YYYY-MM-DD for a date field")], 0
        return [], parsed.toordinal()
    if isinstance(value, str):
        return [FieldError(field, "must be an integer for an integer field")], 0
    return [], value


def _check_range(data_type: str, v: Validators) -> list[FieldError]:
    errors: list[FieldError] = []
    bounds: dict[str, int] = {}
    for name, value in (("min", v.min), ("max", v.max)):
        if value is None:
            continue
        if data_type not in RANGED_TYPES:
            errors.append(FieldError(f"validators.{name}", f"does not apply to {data_type}"))
            continue
        found, bounds[name] = _bound(data_type, name, value)
        errors += found
    if not errors and len(bounds) == 2 and bounds["min"] > bounds["max"]:
        errors.append(FieldError("validators.min", "must not be greater than max"))
    return errors


def _check_pattern(pattern: str) -> list[FieldError]:
    if len(pattern) > MAX_PATTERN_LENGTH:
        message = f"is longer than {MAX_PATTERN_LENGTH} characters"
        return [FieldError("validators.pattern", message)]
    try:
        regex.compile(pattern)  # the module values are matched with (values.py)
    except regex.error as exc:
        return [FieldError("validators.pattern", f"is not a valid regular expression: {exc}")]
    return []


def _check_lengths(data_type: str, v: Validators) -> list[FieldError]:
    errors: list[FieldError] = []
    for name, value in (("minLength", v.min_length), ("maxLength", v.max_length)):
        if value is None:
            continue
        if data_type not in TEXT_TYPES:
            errors.append(FieldError(f"validators.{name}", f"does not apply to {data_type}"))
        elif not 0 <= value <= MAX_VALUE_LENGTH:
            errors.append(FieldError(f"validators.{name}", f"must be 0..{MAX_VALUE_LENGTH}"))
    low, high = v.min_length, v.max_length
    if not errors and low is not None and high is not None and low > high:
        errors.append(FieldError("validators.minLength", "must not be greater than maxLength"))
    return errors


def check_validators(data_type: str, v: Validators) -> list[FieldError]:
    """Each validator must apply to ``data_type``, and its bounds must be consistent."""
    errors = _check_lengths(data_type, v) + _check_range(data_type, v)
    if v.pattern is not None:
        if data_type not in TEXT_TYPES:
            errors.append(FieldError("validators.pattern", f"does not apply to {data_type}"))
        else:
            errors += _check_pattern(v.pattern)
    return errors


def _enum_problem(data_type: str, values: list[str] | None) -> str | None:
    if data_type != "enum":
        return None if values is None else "is only allowed for enum fields"
    if not values:
        return "is required for an enum field (a non-empty list)"
    if len(values) > MAX_ENUM_VALUES:
        return f"has more than {MAX_ENUM_VALUES} values"
    if len(set(values)) != len(values):
        return "values must be unique"
    if any(not v or len(v) > MAX_LABEL_LENGTH for v in values):
        return f"values must be 1..{MAX_LABEL_LENGTH} characters"
    return None


def check_enum_values(data_type: str, values: list[str] | None) -> list[FieldError]:
    """Rule 8: an ``enum`` field lists its permitted values; no other type has any."""
    problem = _enum_problem(data_type, values)
    return [] if problem is None else [FieldError("enumValues", problem)]


def _claim_name_problem(claim_name: str) -> str | None:
    if claim_name.lower() in RESERVED_CLAIMS:
        return f"{claim_name!r} is a reserved claim name"
    if not CLAIM_NAME_PATTERN.fullmatch(claim_name):
        return "must match ^[A-Za-z_][A-Za-z0-9_.:-]{0,99}$"
    return None


def check_claim(claim_name: str | None, claim_scope: str | None) -> list[FieldError]:
    """Rules 1 and 3: both or neither; the name is not reserved and is claim-shaped."""
    if claim_name is None and claim_scope is None:
        return []
    if claim_scope is None:
        return [FieldError("claimScope", "is required when claimName is given")]
    if claim_name is None:
        return [FieldError("claimName", "is required when claimScope is given")]
    errors = []
    if problem := _claim_name_problem(claim_name):
        errors.append(FieldError("claimName", problem))
    if not claim_scope.strip():
        errors.append(FieldError("claimScope", "must not be empty"))
    return errors


def check_create(body: ProfileFieldCreate) -> list[FieldError]:
    """Every rule of a creation body that needs no stored row."""
    return (
        check_key(body.key)
        + check_label(body.label)
        + check_validators(body.data_type, body.validators)
        + check_enum_values(body.data_type, body.enum_values)
        + check_claim(body.claim_name, body.claim_scope)
    )


def merge_update(field: ProfileFieldRead, patch: ProfileFieldUpdate) -> ProfileFieldRead:
    """The field as it would be after ``patch`` (members left out keep their value)."""
    changes = {
        name: getattr(patch, name)
        for name in patch.__struct_fields__
        if getattr(patch, name) is not UNSET
    }
    return msgspec.structs.replace(field, **changes)


def given_members(patch: ProfileFieldUpdate) -> list[str]:
    """Wire names of the members an update body carries (for the audit row)."""
    pairs = zip(patch.__struct_fields__, patch.__struct_encode_fields__, strict=True)
    return sorted(wire for name, wire in pairs if getattr(patch, name) is not UNSET)


def check_update(merged: ProfileFieldRead, patch: ProfileFieldUpdate) -> list[FieldError]:
    """Rules of an update, checked on the field as it would become."""
    errors: list[FieldError] = []
    if patch.label is not UNSET:
        errors += check_label(merged.label)
    if patch.validators is not UNSET:
        errors += check_validators(merged.data_type, merged.validators)
    if patch.enum_values is not UNSET:
        errors += check_enum_values(merged.data_type, merged.enum_values)
    if patch.claim_name is not UNSET or patch.claim_scope is not UNSET:
        errors += check_claim(merged.claim_name, merged.claim_scope)
    return errors
