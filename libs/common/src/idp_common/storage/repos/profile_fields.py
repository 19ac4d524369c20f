"""Administrator-defined profile fields and people's values of them, the one owner of
``profile_fields`` and ``profile_values`` (contract §2 "Profile field"). Rows in and out
as plain values; the rules of a field definition and the typing of values are the pure
package :mod:`idp_common.profile_fields`, which calls this module.

Contract (every function runs in the caller's transaction):
- fields are listed by ``display_order`` then ``key`` (keyset paging);
- ``key`` and ``claim_name`` are unique: :func:`check_taken` checks first, and the unique
  constraints catch a concurrent writer, both raising :class:`FieldTaken` naming the
  member (``key`` or ``claimName``);
- :func:`delete_field` deletes the values with the field (``ON DELETE CASCADE``);
- :func:`set_value` upserts one value (``INSERT … ON CONFLICT DO UPDATE``); a value of a
  unique field already held by someone else raises :class:`ValueTaken`. Postgres decides
  it (partial unique index): of two concurrent writers of one value the second waits for
  the first to commit and then fails.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Final

import msgspec
from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from idp_common.storage.db.models import Group, GroupMember, ProfileField, ProfileValue, Scope
from idp_common.storage.repos.paging import keyset_page

ORDER: Final[tuple[ColumnElement[Any], ...]] = (
    ProfileField.display_order.expression,
    ProfileField.key.expression,
)


class FieldRow(msgspec.Struct, frozen=True, kw_only=True):
    """One stored field; ``validators`` as stored (the JSON of the wire object)."""

    id: uuid.UUID
    key: str
    label: str
    data_type: str
    required: bool
    unique: bool
    user_readable: bool
    user_writable: bool
    validators: dict[str, Any]
    enum_values: list[str] | None
    display_order: int
    group_id: uuid.UUID | None
    claim_name: str | None
    claim_scope: str | None
    created_at: datetime
    updated_at: datetime


class FieldTaken(Exception):
    """Another field has this ``key`` or ``claimName`` (the member named)."""

    def __init__(self, member: str) -> None:
        super().__init__(f"another profile field has this {member}")
        self.member = member


class ValueTaken(Exception):
    """Another person holds this value of a unique field."""


def _row(field: ProfileField) -> FieldRow:
    names = FieldRow.__struct_fields__
    values = {name: getattr(field, "is_unique" if name == "unique" else name) for name in names}
    return FieldRow(**{**values, "validators": field.validators or {}})


def _columns(values: dict[str, Any]) -> dict[str, Any]:
    """Attribute names of :class:`ProfileField` for ``values`` keyed as :class:`FieldRow`."""
    return {"is_unique" if name == "unique" else name: value for name, value in values.items()}


async def list_fields(
    session: AsyncSession, *, limit: int, cursor: str | None
) -> tuple[list[FieldRow], str | None]:
    rows: list[ProfileField]
    rows, next_cursor = await keyset_page(
        session,
        select(ProfileField),
        order_by=ORDER,
        key_of=lambda r: (r.display_order, r.key),
        limit=limit,
        cursor=cursor,
    )
    return [_row(r) for r in rows], next_cursor


async def get_field(
    session: AsyncSession, field_id: uuid.UUID, *, lock: bool = False
) -> FieldRow | None:
    """The field as stored now; ``lock`` holds its row until the transaction ends."""
    row = await session.get(ProfileField, field_id, with_for_update=lock, populate_existing=True)
    return None if row is None else _row(row)


async def scope_exists(session: AsyncSession, value: str) -> bool:
    return await session.scalar(select(Scope.id).where(Scope.value == value)) is not None


async def group_exists(session: AsyncSession, group_id: uuid.UUID) -> bool:
    return await session.scalar(select(Group.id).where(Group.id == group_id)) is not None


async def check_taken(
    session: AsyncSession, *, key: str | None, claim_name: str | None, other_than: uuid.UUID | None
) -> None:
    """:class:`FieldTaken` when another field has ``key`` or ``claim_name``."""
    base = select(ProfileField.id)
    if other_than is not None:
        base = base.where(ProfileField.id != other_than)
    if key is not None and await session.scalar(base.where(ProfileField.key == key)):
        raise FieldTaken("key")
    if claim_name is not None and await session.scalar(
        base.where(ProfileField.claim_name == claim_name)
    ):
        raise FieldTaken("claimName")


def _taken_of(error: IntegrityError) -> FieldTaken:
    text = str(error.orig)
    if "uq_profile_fields_key" in text:
        return FieldTaken("key")
    if "uq_profile_fields_claim_name" in text:
        return FieldTaken("claimName")
    raise error


async def insert_field(session: AsyncSession, values: dict[str, Any]) -> FieldRow:
    """Insert a field (``values`` keyed as :class:`FieldRow`, without ids and times); a
    ``display_order`` of None places it after the last field."""
    if values.get("display_order") is None:
        last = await session.scalar(select(func.max(ProfileField.display_order)))
        values = {**values, "display_order": (last or 0) + 1}
    statement = insert(ProfileField).values(**_columns(values)).returning(ProfileField)
    try:
        row = await session.scalar(statement)
    except IntegrityError as error:
        raise _taken_of(error) from error
    assert row is not None  # an INSERT … RETURNING answers its row
    return _row(row)


async def update_field(
    session: AsyncSession, field_id: uuid.UUID, values: dict[str, Any]
) -> FieldRow | None:
    """Change the members in ``values`` (keyed as :class:`FieldRow`); None when absent."""
    statement = (
        update(ProfileField)
        .where(ProfileField.id == field_id)
        .values(**_columns(values), updated_at=func.now())
        .returning(ProfileField)
        .execution_options(populate_existing=True)
    )
    try:
        row = await session.scalar(statement)
    except IntegrityError as error:
        raise _taken_of(error) from error
    return None if row is None else _row(row)


async def delete_field(session: AsyncSession, field_id: uuid.UUID) -> None:
    await session.execute(delete(ProfileField).where(ProfileField.id == field_id))


async def fields_of_user(session: AsyncSession, user_id: uuid.UUID) -> list[FieldRow]:
    """Fields that apply to the person: global ones and those of the person's groups."""
    groups = select(GroupMember.group_id).where(GroupMember.user_id == user_id)
    query = (
        select(ProfileField)
        .where(or_(ProfileField.group_id.is_(None), ProfileField.group_id.in_(groups)))
        .order_by(*ORDER)
    )
    return [_row(r) for r in await session.scalars(query)]


async def value_texts(session: AsyncSession, user_id: uuid.UUID) -> dict[uuid.UUID, str]:
    """``{field id: stored text}`` of every value the person has."""
    query = select(ProfileValue.field_id, ProfileValue.value).where(ProfileValue.user_id == user_id)
    return dict((await session.execute(query)).all())


async def set_value(
    session: AsyncSession,
    user_id: uuid.UUID,
    field_id: uuid.UUID,
    text: str | None,
    *,
    unique: bool,
) -> None:
    """Store ``text`` as the person's value of the field (``unique``: the field's flag), or
    delete it with None."""
    if text is None:
        await session.execute(
            delete(ProfileValue).where(
                ProfileValue.user_id == user_id, ProfileValue.field_id == field_id
            )
        )
        return
    upsert = insert(ProfileValue).values(
        field_id=field_id, user_id=user_id, value=text, is_unique=unique
    )
    upsert = upsert.on_conflict_do_update(
        index_elements=[ProfileValue.field_id, ProfileValue.user_id],
        set_={"value": upsert.excluded.value},
    )
    try:
        await session.execute(upsert)
    except IntegrityError as error:
        if "uq_profile_values_field_id_value" not in str(error.orig):
            raise
        raise ValueTaken from error
