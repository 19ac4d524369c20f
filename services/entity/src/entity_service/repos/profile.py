"""The caller's own profile (contract §2 "Profile field" and "Built-in person facts"; part 4
``/entity/profile`` and ``/entity/profile/schema``).

Contract:
- the fields of a person are those that apply to them (global ones and those of their
  groups, :func:`idp_common.profile_fields.store.fields_of_user`); the person sees only
  the ``userReadable`` ones and may change only those also ``userWritable``;
- :func:`plan_edit` checks a whole PATCH body before anything is written: every key at
  fault is named in one 422 (a field the person cannot see reads as unknown, so its
  existence is not revealed); values are validated and converted by the functions the
  admin API uses (:func:`idp_common.profile_fields.values.to_text`);
- besides field keys the body may carry the built-in facts ``displayName`` and
  ``username`` (null removes the username). A profile field whose key is ``username``
  and that applies to the person takes precedence: the body is keyed by field key (spec);
- :func:`apply_edit` writes in the caller's transaction; a username or a ``unique`` value
  held by someone else is a 409 naming the key (Postgres decides, so two concurrent
  writers cannot both win), and the caller's transaction rolls back: nothing half-written.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from entity_service.person import not_a_person
from idp_common.avatars.names import public_url
from idp_common.errors import Conflict, FieldError, InvalidArgument
from idp_common.profile_fields import store as fields_store
from idp_common.profile_fields.schema import DataType, ProfileFieldRead, Validators
from idp_common.profile_fields.values import to_text
from idp_common.storage.repos.users import IdentifierTaken, get_user, update_user

#: Where the media route serves photos (``users.picture`` is the object name).
DISPLAY_NAME: Final = "displayName"
USERNAME: Final = "username"
MAX_DISPLAY_NAME: Final = 200  # as the admin API
MAX_USERNAME: Final = 100
_USERNAME_SHAPE: Final = re.compile(r"\S+")

Change = tuple[ProfileFieldRead, str | None]


class ProfileRead(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The built-in facts and ``fields``: ``{key: value}`` of every readable field that
    applies to the person (null where no value is stored)."""

    id: uuid.UUID
    email: str
    email_verified: bool
    username: str | None
    display_name: str
    picture: str | None
    created_at: datetime
    updated_at: datetime
    fields: dict[str, Any]


class SchemaField(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    key: str
    label: str
    data_type: DataType
    required: bool
    unique: bool
    user_writable: bool
    validators: Validators
    enum_values: list[str] | None
    display_order: int


class ProfileSchema(msgspec.Struct, frozen=True):
    items: list[SchemaField]


class ProfileEdit(msgspec.Struct, frozen=True):
    """A checked PATCH body: built-in facts (attributes of ``users``) and field values
    (stored text, None to delete)."""

    facts: dict[str, str | None]
    values: list[Change]


async def fields_of(session: AsyncSession, user_id: uuid.UUID) -> list[ProfileFieldRead]:
    """Every field that applies to the person, readable or not, in ``displayOrder``."""
    return await fields_store.fields_of_user(session, user_id)


def readable(fields: Sequence[ProfileFieldRead]) -> list[ProfileFieldRead]:
    return [f for f in fields if f.user_readable]


def schema_of(fields: Sequence[ProfileFieldRead]) -> ProfileSchema:
    return ProfileSchema(
        items=[
            SchemaField(
                key=f.key,
                label=f.label,
                data_type=f.data_type,
                required=f.required,
                unique=f.unique,
                user_writable=f.user_writable,
                validators=f.validators,
                enum_values=f.enum_values,
                display_order=f.display_order,
            )
            for f in readable(fields)
        ]
    )


async def read_profile(
    session: AsyncSession, user_id: uuid.UUID, fields: Sequence[ProfileFieldRead], base_url: str
) -> ProfileRead:
    """``base_url`` is the issuer's base: the photo's public URL hangs off it."""
    user = await get_user(session, user_id)
    if user is None:
        raise not_a_person()
    shown = readable(fields)
    return ProfileRead(
        id=user.id,
        email=user.email,
        email_verified=user.email_verified,
        username=user.username,
        display_name=user.display_name,
        picture=public_url(base_url, user.picture) if user.picture else None,
        created_at=user.created_at,
        updated_at=user.updated_at,
        fields=await fields_store.read_values(session, user_id, shown),
    )


# --- checking a PATCH body (pure) -----------------------------------------------------------


def _field_change(field: ProfileFieldRead, raw: Any) -> Change:
    """Raises ValueError with the message for the key."""
    if not field.user_readable:
        raise ValueError("is not a profile field that applies to you")
    if not field.user_writable:
        raise ValueError("cannot be changed by you (the field is not userWritable)")
    if raw is None:
        if field.required:
            raise ValueError("is required and cannot be removed")
        return (field, None)
    return (field, to_text(field, raw))


def _fact(key: str, raw: Any) -> str | None:
    """The stored value of a built-in fact; ValueError with the message for the key."""
    if key == USERNAME and raw is None:
        return None
    if not isinstance(raw, str):
        raise ValueError("must be a string" + (" or null" if key == USERNAME else ""))
    if key == DISPLAY_NAME:
        if len(raw) > MAX_DISPLAY_NAME:
            raise ValueError(f"is longer than {MAX_DISPLAY_NAME} characters")
        return raw
    if not _USERNAME_SHAPE.fullmatch(raw) or len(raw) > MAX_USERNAME:
        raise ValueError(f"must be 1 to {MAX_USERNAME} characters without spaces")
    return raw


def plan_edit(fields: Sequence[ProfileFieldRead], body: dict[str, Any]) -> ProfileEdit:
    """Check every key of ``body`` against the fields that apply to the person; a 422
    naming every key at fault, or the edit to apply."""
    by_key = {f.key: f for f in fields}
    facts: dict[str, str | None] = {}
    values: list[Change] = []
    errors: list[FieldError] = []
    for key, raw in body.items():
        try:
            if key in by_key:
                values.append(_field_change(by_key[key], raw))
            elif key == DISPLAY_NAME:
                facts["display_name"] = _fact(key, raw)
            elif key == USERNAME:
                facts["username"] = _fact(key, raw)
            else:
                raise ValueError("is not a profile field that applies to you")
        except ValueError as exc:
            errors.append(FieldError(key, str(exc)))
    if errors:
        names = ", ".join(e.field for e in errors)
        raise InvalidArgument(f"invalid profile values: {names}", errors=errors)
    return ProfileEdit(facts=facts, values=values)


# --- writing ----------------------------------------------------------------------------------


def _username_taken() -> Conflict:
    return Conflict(
        "username: another person already has this username",
        code="entity.username_taken",
        errors=[FieldError(USERNAME, "another person already has this username")],
    )


async def apply_edit(session: AsyncSession, user_id: uuid.UUID, edit: ProfileEdit) -> None:
    """Write ``edit`` in the caller's transaction; ``updated_at`` moves with any change
    (the ``updated_at`` claim covers mapped profile fields too)."""
    if not edit.facts and not edit.values:
        return
    try:
        await update_user(session, user_id, edit.facts)
    except IdentifierTaken as taken:
        raise _username_taken() from taken
    await fields_store.set_values(session, user_id, edit.values)
