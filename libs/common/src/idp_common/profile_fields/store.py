"""Repository of profile fields and values (spec part 2 "Profile field").

Contract:
- fields are listed by ``displayOrder`` then ``key`` (keyset paging);
- ``create_field`` / ``update_field`` check every rule (:mod:`.rules`, the scope and the
  group exist) and raise :class:`InvalidArgument` naming each member at fault, or
  :class:`Conflict` when ``key`` or ``claimName`` is taken (checked first, and the unique
  constraints catch a concurrent writer);
- ``delete_field`` deletes the values with it (foreign key ``ON DELETE CASCADE``, rule 5);
- ``set_values`` writes a person's values in the caller's transaction; a value of a
  ``unique`` field already held by someone else raises :class:`Conflict` naming the key.
  Postgres decides it (partial unique index): of two concurrent writers of one value the
  second waits for the first to commit and then fails.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import msgspec
from sqlalchemy import delete, func, or_, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.profile_fields import rules
from idp_common.profile_fields.schema import (
    ProfileFieldCreate,
    ProfileFieldPage,
    ProfileFieldRead,
    ProfileFieldUpdate,
    Validators,
)
from idp_common.profile_fields.values import from_text
from idp_common.storage.db.models import Group, GroupMember, ProfileField, ProfileValue, Scope
from idp_common.storage.repos.paging import keyset_page

ORDER: tuple[ColumnElement[Any], ...] = (
    ProfileField.display_order.expression,
    ProfileField.key.expression,
)


def parse_id(value: str | uuid.UUID) -> uuid.UUID | None:
    """A path identifier as a UUID; None when malformed (the caller answers 404)."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _read(row: ProfileField) -> ProfileFieldRead:
    return ProfileFieldRead(
        id=row.id,
        key=row.key,
        label=row.label,
        data_type=row.data_type,  # type: ignore[arg-type]  # the CHECK constraint keeps it one of DataType
        required=row.required,
        unique=row.is_unique,
        user_readable=row.user_readable,
        user_writable=row.user_writable,
        validators=msgspec.convert(row.validators or {}, Validators),
        enum_values=row.enum_values,
        display_order=row.display_order,
        group_id=row.group_id,
        claim_name=row.claim_name,
        claim_scope=row.claim_scope,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _validators_json(v: Validators) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(v)
    return data


async def list_fields(session: AsyncSession, *, limit: int, cursor: str | None) -> ProfileFieldPage:
    rows: list[ProfileField]
    rows, next_cursor = await keyset_page(
        session,
        select(ProfileField),
        order_by=ORDER,
        key_of=lambda r: (r.display_order, r.key),
        limit=limit,
        cursor=cursor,
    )
    return ProfileFieldPage([_read(r) for r in rows], next_cursor)


async def get_field(session: AsyncSession, field_id: str | uuid.UUID) -> ProfileFieldRead | None:
    key = parse_id(field_id)
    row = None if key is None else await session.get(ProfileField, key)
    return None if row is None else _read(row)


async def _stored_errors(
    session: AsyncSession, claim_scope: str | None, group_id: uuid.UUID | None
) -> list[FieldError]:
    errors = []
    if claim_scope is not None and not await session.scalar(
        select(Scope.id).where(Scope.value == claim_scope)
    ):
        errors.append(FieldError("claimScope", f"no scope {claim_scope!r} exists"))
    if group_id is not None and await session.get(Group, group_id) is None:
        errors.append(FieldError("groupId", "no such group"))
    return errors


async def _check_taken(
    session: AsyncSession, key: str | None, claim_name: str | None, field_id: uuid.UUID | None
) -> None:
    base = select(ProfileField.id)
    if field_id is not None:  # an update: the field itself does not count
        base = base.where(ProfileField.id != field_id)
    if key is not None and await session.scalar(base.where(ProfileField.key == key)):
        raise _key_taken()
    if claim_name is not None and await session.scalar(
        base.where(ProfileField.claim_name == claim_name)
    ):
        raise _claim_name_taken()


def _key_taken() -> Conflict:
    return Conflict(
        "a profile field with this key exists",
        code="profile_field.key_taken",
        errors=[FieldError("key", "a profile field with this key exists")],
    )


def _claim_name_taken() -> Conflict:
    return Conflict(
        "claimName is released by another field",
        code="profile_field.claim_name_taken",
        errors=[FieldError("claimName", "released by another field")],
    )


def _conflict_of(exc: IntegrityError) -> Conflict:
    text = str(exc.orig)
    if "uq_profile_fields_key" in text:
        return _key_taken()
    if "uq_profile_fields_claim_name" in text:
        return _claim_name_taken()
    raise exc


async def _flush(session: AsyncSession) -> None:
    try:
        await session.flush()
    except IntegrityError as exc:
        raise _conflict_of(exc) from exc


def _invalid(errors: list[FieldError]) -> InvalidArgument:
    names = ", ".join(e.field for e in errors)
    return InvalidArgument(f"invalid profile field: {names}", errors=errors)


async def create_field(session: AsyncSession, body: ProfileFieldCreate) -> ProfileFieldRead:
    errors = rules.check_create(body)
    errors += await _stored_errors(session, body.claim_scope, body.group_id)
    if errors:
        raise _invalid(errors)
    await _check_taken(session, body.key, body.claim_name, None)
    order = body.display_order
    if order is None:  # after the last field
        order = (await session.scalar(select(func.max(ProfileField.display_order))) or 0) + 1
    row = ProfileField(
        key=body.key,
        label=body.label,
        data_type=body.data_type,
        required=body.required,
        is_unique=body.unique,
        user_readable=body.user_readable,
        user_writable=body.user_writable,
        validators=_validators_json(body.validators),
        enum_values=body.enum_values,
        display_order=order,
        group_id=body.group_id,
        claim_name=body.claim_name,
        claim_scope=body.claim_scope,
    )
    session.add(row)
    await _flush(session)
    return _read(row)


async def update_field(
    session: AsyncSession, field_id: str | uuid.UUID, patch: ProfileFieldUpdate
) -> ProfileFieldRead:
    key = parse_id(field_id)
    row = None if key is None else await session.get(ProfileField, key, with_for_update=True)
    if row is None:
        raise NotFound("no such profile field", code="profile_field.not_found")
    merged = rules.merge_update(_read(row), patch)
    errors = rules.check_update(merged, patch)
    if merged.claim_scope != row.claim_scope:
        errors += await _stored_errors(session, merged.claim_scope, None)
    if errors:
        raise _invalid(errors)
    if merged.claim_name != row.claim_name:
        await _check_taken(session, None, merged.claim_name, row.id)
    row.label = merged.label
    row.required = merged.required
    row.user_readable = merged.user_readable
    row.user_writable = merged.user_writable
    row.validators = _validators_json(merged.validators)
    row.enum_values = merged.enum_values
    row.display_order = merged.display_order
    row.claim_name = merged.claim_name
    row.claim_scope = merged.claim_scope
    await _flush(session)
    return _read(row)


async def delete_field(session: AsyncSession, field_id: str | uuid.UUID) -> ProfileFieldRead:
    """Delete the field and (cascade) every value of it; NotFound when absent."""
    key = parse_id(field_id)
    row = None if key is None else await session.get(ProfileField, key)
    if row is None:
        raise NotFound("no such profile field", code="profile_field.not_found")
    deleted = _read(row)
    await session.execute(delete(ProfileField).where(ProfileField.id == row.id))
    return deleted


async def fields_of_user(session: AsyncSession, user_id: uuid.UUID) -> list[ProfileFieldRead]:
    """Fields that apply to the person: global ones and those of the person's groups."""
    groups = select(GroupMember.group_id).where(GroupMember.user_id == user_id)
    query = (
        select(ProfileField)
        .where(or_(ProfileField.group_id.is_(None), ProfileField.group_id.in_(groups)))
        .order_by(*ORDER)
    )
    return [_read(r) for r in await session.scalars(query)]


async def read_values(
    session: AsyncSession, user_id: uuid.UUID, fields: Sequence[ProfileFieldRead]
) -> dict[str, Any]:
    """``{key: value}`` of ``fields`` (typed; null where the person has no value)."""
    query = select(ProfileValue.field_id, ProfileValue.value).where(ProfileValue.user_id == user_id)
    stored = {field_id: value for field_id, value in await session.execute(query)}
    return {
        f.key: None if f.id not in stored else from_text(f.data_type, stored[f.id]) for f in fields
    }


async def set_values(
    session: AsyncSession,
    user_id: uuid.UUID,
    changes: Sequence[tuple[ProfileFieldRead, str | None]],
) -> None:
    """Write (text) or delete (None) each value, in the caller's transaction."""
    for field, text in changes:
        if text is None:
            await session.execute(
                delete(ProfileValue).where(
                    ProfileValue.user_id == user_id, ProfileValue.field_id == field.id
                )
            )
            continue
        upsert = insert(ProfileValue).values(
            field_id=field.id, user_id=user_id, value=text, is_unique=field.unique
        )
        upsert = upsert.on_conflict_do_update(
            index_elements=[ProfileValue.field_id, ProfileValue.user_id],
            set_={"value": upsert.excluded.value},
        )
        try:
            await session.execute(upsert)
        except IntegrityError as exc:
            if "uq_profile_values_field_id_value" not in str(exc.orig):
                raise
            raise Conflict(
                f"{field.key}: this value is already used by another person",
                code="profile.value_not_unique",
                errors=[FieldError(field.key, "already used by another person")],
            ) from exc
