"""Profile fields and values with their rules applied (contract §2 "Profile field"): what
the administration and self-service APIs call. The rows are
:mod:`idp_common.storage.repos.profile_fields`'s (the one owner of the tables); here they
become the wire shapes of :mod:`.schema`, checked by :mod:`.rules` and typed by
:mod:`.values`.

- ``create_field`` / ``update_field`` check every rule (:mod:`.rules`, the scope and the
  group exist) and raise :class:`InvalidArgument` naming each member at fault, or
  :class:`Conflict` when ``key`` or ``claimName`` is taken (also by a concurrent writer);
- ``delete_field`` deletes the values with it (rule 5);
- ``set_values`` writes a person's values in the caller's transaction; a value of a
  ``unique`` field already held by someone else raises :class:`Conflict` naming the key.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.profile_fields import rules
from idp_common.profile_fields.schema import (
    ProfileFieldCreate,
    ProfileFieldPage,
    ProfileFieldRead,
    ProfileFieldUpdate,
)
from idp_common.profile_fields.values import from_text
from idp_common.storage.repos import profile_fields as repo
from idp_common.storage.repos import users as user_repo
from idp_common.storage.repos.profile_fields import FieldRow, FieldTaken, ValueTaken

#: What ``update_field`` may change (``key``, ``dataType``, ``unique``, ``groupId`` stay).
_CHANGEABLE = (
    "label",
    "required",
    "user_readable",
    "user_writable",
    "validators",
    "enum_values",
    "display_order",
    "claim_name",
    "claim_scope",
)
#: member taken: (message, the member's message, code)
_CONFLICTS = {
    "key": (
        "a profile field with this key exists",
        "a profile field with this key exists",
        "profile_field.key_taken",
    ),
    "claimName": (
        "claimName is released by another field",
        "released by another field",
        "profile_field.claim_name_taken",
    ),
}


def parse_id(value: str | uuid.UUID) -> uuid.UUID | None:
    """A path identifier as a UUID; None when malformed (the caller answers 404)."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _read(row: FieldRow) -> ProfileFieldRead:
    return msgspec.convert(row, ProfileFieldRead, from_attributes=True)


def _stored(field: ProfileFieldRead | ProfileFieldCreate, names: Sequence[str]) -> dict[str, Any]:
    """``names`` of ``field`` as the repository stores them (validators as JSON)."""
    values = {name: getattr(field, name) for name in names}
    if "validators" in values:
        values["validators"] = msgspec.to_builtins(values["validators"])
    return values


def _conflict(taken: FieldTaken) -> Conflict:
    message, member_message, code = _CONFLICTS[taken.member]
    return Conflict(message, code=code, errors=[FieldError(taken.member, member_message)])


def _not_found() -> NotFound:
    return NotFound("no such profile field", code="profile_field.not_found")


def _invalid(errors: list[FieldError]) -> InvalidArgument:
    names = ", ".join(e.field for e in errors)
    return InvalidArgument(f"invalid profile field: {names}", errors=errors)


async def _stored_errors(
    session: AsyncSession, claim_scope: str | None, group_id: uuid.UUID | None
) -> list[FieldError]:
    errors = []
    if claim_scope is not None and not await repo.scope_exists(session, claim_scope):
        errors.append(FieldError("claimScope", f"no scope {claim_scope!r} exists"))
    if group_id is not None and not await repo.group_exists(session, group_id):
        errors.append(FieldError("groupId", "no such group"))
    return errors


async def list_fields(session: AsyncSession, *, limit: int, cursor: str | None) -> ProfileFieldPage:
    rows, next_cursor = await repo.list_fields(session, limit=limit, cursor=cursor)
    return ProfileFieldPage([_read(r) for r in rows], next_cursor)


async def get_field(session: AsyncSession, field_id: str | uuid.UUID) -> ProfileFieldRead | None:
    key = parse_id(field_id)
    row = None if key is None else await repo.get_field(session, key)
    return None if row is None else _read(row)


async def create_field(session: AsyncSession, body: ProfileFieldCreate) -> ProfileFieldRead:
    errors = rules.check_create(body)
    errors += await _stored_errors(session, body.claim_scope, body.group_id)
    if errors:
        raise _invalid(errors)
    try:
        await repo.check_taken(session, key=body.key, claim_name=body.claim_name, other_than=None)
        row = await repo.insert_field(session, _stored(body, body.__struct_fields__))
    except FieldTaken as taken:
        raise _conflict(taken) from taken
    return _read(row)


async def update_field(
    session: AsyncSession, field_id: str | uuid.UUID, patch: ProfileFieldUpdate
) -> ProfileFieldRead:
    key = parse_id(field_id)
    row = None if key is None else await repo.get_field(session, key, lock=True)
    if row is None:
        raise _not_found()
    merged = rules.merge_update(_read(row), patch)
    errors = rules.check_update(merged, patch)
    if merged.claim_scope != row.claim_scope:
        errors += await _stored_errors(session, merged.claim_scope, None)
    if errors:
        raise _invalid(errors)
    try:
        if merged.claim_name != row.claim_name:
            await repo.check_taken(
                session, key=None, claim_name=merged.claim_name, other_than=row.id
            )
        updated = await repo.update_field(session, row.id, _stored(merged, _CHANGEABLE))
    except FieldTaken as taken:
        raise _conflict(taken) from taken
    if updated is None:  # unreachable while the row lock is held
        raise _not_found()
    return _read(updated)


async def delete_field(session: AsyncSession, field_id: str | uuid.UUID) -> ProfileFieldRead:
    """Delete the field and (cascade) every value of it; NotFound when absent."""
    key = parse_id(field_id)
    row = None if key is None else await repo.get_field(session, key)
    if row is None:
        raise _not_found()
    await repo.delete_field(session, row.id)
    return _read(row)


async def fields_of_user(session: AsyncSession, user_id: uuid.UUID) -> list[ProfileFieldRead]:
    """Fields that apply to the person: global ones and those of the person's groups."""
    return [_read(r) for r in await repo.fields_of_user(session, user_id)]


async def read_values(
    session: AsyncSession, user_id: uuid.UUID, fields: Sequence[ProfileFieldRead]
) -> dict[str, Any]:
    """``{key: value}`` of ``fields`` (typed; null where the person has no value)."""
    stored = await repo.value_texts(session, user_id)
    return {
        f.key: None if f.id not in stored else from_text(f.data_type, stored[f.id]) for f in fields
    }


async def set_values(
    session: AsyncSession,
    user_id: uuid.UUID,
    changes: Sequence[tuple[ProfileFieldRead, str | None]],
) -> None:
    """Write (text) or delete (None) each value, in the caller's transaction; the person's
    ``updated_at`` moves with them (SCIM's ``meta.lastModified``, docs/scim.md)."""
    if changes:
        await user_repo.update_user(session, user_id, {})
    for field, text in changes:
        try:
            await repo.set_value(session, user_id, field.id, text, unique=field.unique)
        except ValueTaken as taken:
            raise Conflict(
                f"{field.key}: this value is already used by another person",
                code="profile.value_not_unique",
                errors=[FieldError(field.key, "already used by another person")],
            ) from taken
