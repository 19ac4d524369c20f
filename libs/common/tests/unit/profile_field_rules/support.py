"""Helpers shared by the profile field rule tests: a field and its refusals."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from idp_common.errors import FieldError
from idp_common.profile_fields.schema import (
    ProfileFieldRead,
    Validators,
)
from idp_common.profile_fields.values import to_text


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


TEXT = ["string", "email", "phone", "url"]
NOT_TEXT = ["integer", "boolean", "date", "enum"]


def refused(f: Any, raw: Any) -> str:
    with pytest.raises(ValueError) as info:
        to_text(f, raw)
    return str(info.value)
