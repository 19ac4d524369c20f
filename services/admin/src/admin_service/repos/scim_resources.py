"""Reads of people and groups as the SCIM endpoints show them (docs/scim.md): pages with
a filter and an order from :mod:`admin_service.repos.scim_filters`, the total count,
and what a SCIM document holds beside the row (memberships, profile values) for a whole
page in one query each. Writes go through the tables' owners (``users``, ``groups``,
``profile_fields``); this module writes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from idp_common.storage.db.models import Group, GroupMember, ProfileValue, User

Where = ColumnElement[bool] | None
Order = Sequence[ColumnElement[Any]]


class UserRow(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    email: str
    username: str | None
    display_name: str
    disabled: bool
    external_id: str | None
    created_at: datetime
    updated_at: datetime


class GroupRow(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    name: str
    external_id: str | None
    created_at: datetime
    updated_at: datetime


class MemberRef(msgspec.Struct, frozen=True):
    """One side of a membership: the other's id and name."""

    id: uuid.UUID
    display: str


_USER = (
    User.id,
    User.email,
    User.username,
    User.display_name,
    User.disabled,
    User.external_id,
    User.created_at,
    User.updated_at,
)
_GROUP = (Group.id, Group.name, Group.external_id, Group.created_at, Group.updated_at)


def _user(row: Any) -> UserRow:
    return UserRow(**{c.key: v for c, v in zip(_USER, row, strict=True)})


def _group(row: Any) -> GroupRow:
    return GroupRow(**{c.key: v for c, v in zip(_GROUP, row, strict=True)})


def _id(raw: str | uuid.UUID) -> uuid.UUID | None:
    try:
        return raw if isinstance(raw, uuid.UUID) else uuid.UUID(raw)
    except ValueError:
        return None


async def get_user(
    session: AsyncSession, user_id: str | uuid.UUID, *, lock: bool = False
) -> UserRow | None:
    """The person (locked until the transaction ends with ``lock``); None when absent or
    the id is malformed."""
    key = _id(user_id)
    if key is None:
        return None
    query = select(*_USER).where(User.id == key)
    row = (await session.execute(query.with_for_update() if lock else query)).one_or_none()
    return None if row is None else _user(row)


async def page_users(
    session: AsyncSession, where: Where, order: Order, *, offset: int, limit: int
) -> tuple[int, list[UserRow]]:
    """(how many match, the page of them from ``offset`` in ``order`` then id)."""
    counted = select(func.count()).select_from(User)
    query = select(*_USER)
    if where is not None:
        counted, query = counted.where(where), query.where(where)
    total = int(await session.scalar(counted) or 0)
    if limit <= 0 or offset >= total:
        return total, []
    rows = await session.execute(query.order_by(*order, User.id).offset(offset).limit(limit))
    return total, [_user(r) for r in rows]


async def groups_of_users(
    session: AsyncSession, user_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, list[MemberRef]]:
    """Each person's groups (id and name), by name."""
    found: dict[uuid.UUID, list[MemberRef]] = {u: [] for u in user_ids}
    if not user_ids:
        return found
    rows = await session.execute(
        select(GroupMember.user_id, Group.id, Group.name)
        .join(Group, Group.id == GroupMember.group_id)
        .where(GroupMember.user_id.in_(user_ids))
        .order_by(Group.name, Group.id)
    )
    for user, group, name in rows:
        found[user].append(MemberRef(group, name))
    return found


async def values_of_users(
    session: AsyncSession, user_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, dict[uuid.UUID, str]]:
    """Each person's stored profile values, ``{field id: text}``."""
    found: dict[uuid.UUID, dict[uuid.UUID, str]] = {u: {} for u in user_ids}
    if not user_ids:
        return found
    rows = await session.execute(
        select(ProfileValue.user_id, ProfileValue.field_id, ProfileValue.value).where(
            ProfileValue.user_id.in_(user_ids)
        )
    )
    for user, field, text in rows:
        found[user][field] = text
    return found


async def get_group(
    session: AsyncSession, group_id: str | uuid.UUID, *, lock: bool = False
) -> GroupRow | None:
    key = _id(group_id)
    if key is None:
        return None
    query = select(*_GROUP).where(Group.id == key)
    row = (await session.execute(query.with_for_update() if lock else query)).one_or_none()
    return None if row is None else _group(row)


async def page_groups(
    session: AsyncSession, where: Where, order: Order, *, offset: int, limit: int
) -> tuple[int, list[GroupRow]]:
    counted = select(func.count()).select_from(Group)
    query = select(*_GROUP)
    if where is not None:
        counted, query = counted.where(where), query.where(where)
    total = int(await session.scalar(counted) or 0)
    if limit <= 0 or offset >= total:
        return total, []
    rows = await session.execute(query.order_by(*order, Group.id).offset(offset).limit(limit))
    return total, [_group(r) for r in rows]


async def members_of_groups(
    session: AsyncSession, group_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, list[MemberRef]]:
    """Each group's members (id and display name, the email when it is empty), by email."""
    found: dict[uuid.UUID, list[MemberRef]] = {g: [] for g in group_ids}
    if not group_ids:
        return found
    rows = await session.execute(
        select(GroupMember.group_id, User.id, User.display_name, User.email)
        .join(User, User.id == GroupMember.user_id)
        .where(GroupMember.group_id.in_(group_ids))
        .order_by(func.lower(User.email), User.id)
    )
    for group, user, name, email in rows:
        found[group].append(MemberRef(user, name or email))
    return found


async def existing_users(session: AsyncSession, ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
    """Which of ``ids`` name a person."""
    if not ids:
        return set()
    return set(await session.scalars(select(User.id).where(User.id.in_(ids))))
