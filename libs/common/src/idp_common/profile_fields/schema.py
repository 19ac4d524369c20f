"""Wire shapes of profile fields (contract §2 table; docs/design.md "Profile fields").

Defaults of omitted properties (rule 7, docs/design.md): ``dataType`` ``string``, ``required``
false, ``unique`` false, ``userReadable`` true, ``userWritable`` false, ``validators``
``{}``, ``displayOrder`` after the last field. ``enumValues`` (rule 8) lists the permitted
values of an ``enum`` field.

``validators``: ``pattern`` (a Python regular expression the whole value must match),
``minLength`` and ``maxLength`` (characters) apply to ``string``, ``email``, ``phone`` and
``url``; ``min`` and ``max`` apply to ``integer`` (numbers) and ``date`` (ISO dates
``YYYY-MM-DD`` as strings); none apply to ``boolean`` and ``enum``.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

DataType = Literal["string", "integer", "boolean", "date", "enum", "email", "phone", "url"]
#: ``min``/``max``: an integer (integer fields; there is no decimal type) or an ISO date.
#: ``int | float`` would also make the OpenAPI ``oneOf`` ambiguous for every integer.
Bound = int | str


class Validators(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, rename="camel"
):
    pattern: str | None = None
    min: Bound | None = None
    max: Bound | None = None
    min_length: int | None = None
    max_length: int | None = None


NO_VALIDATORS = Validators()


class ProfileFieldCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """``POST /admin/profile-fields`` (and the shape of a preset)."""

    key: str
    label: str
    data_type: DataType = "string"
    required: bool = False
    unique: bool = False
    user_readable: bool = True
    user_writable: bool = False
    validators: Validators = NO_VALIDATORS
    enum_values: list[str] | None = None
    display_order: int | None = None
    group_id: uuid.UUID | None = None
    claim_name: str | None = None
    claim_scope: str | None = None


class ProfileFieldUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """``PATCH /admin/profile-fields/{field_id}``: ``key``, ``dataType``, ``unique`` and
    ``groupId`` are immutable (rule 4) and refused as unknown members. ``validators``
    replaces the whole set; ``claimName``/``claimScope`` null unmaps the claim."""

    label: str | UnsetType = UNSET
    required: bool | UnsetType = UNSET
    user_readable: bool | UnsetType = UNSET
    user_writable: bool | UnsetType = UNSET
    validators: Validators | UnsetType = UNSET
    enum_values: list[str] | UnsetType = UNSET
    display_order: int | UnsetType = UNSET
    claim_name: str | UnsetType | None = UNSET
    claim_scope: str | UnsetType | None = UNSET


class ProfileFieldRead(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    id: uuid.UUID
    key: str
    label: str
    data_type: DataType
    required: bool
    unique: bool
    user_readable: bool
    user_writable: bool
    validators: Validators
    enum_values: list[str] | None
    display_order: int
    group_id: uuid.UUID | None
    claim_name: str | None
    claim_scope: str | None
    created_at: datetime
    updated_at: datetime


class ProfileFieldPage(msgspec.Struct, frozen=True, rename="camel"):
    items: list[ProfileFieldRead]
    next_cursor: str | None
