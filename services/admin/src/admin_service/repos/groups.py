"""Groups, their members and their roles: the one writer of ``groups``, ``group_members``
and ``group_roles`` (contract §4 "Admin: groups").

Only the admin service writes them. A group is the same named entry as a role, on the
roles' generic core (:mod:`idp_common.storage.repos.catalogue`: writes lock the group row, a
taken name is a ``Conflict`` even for two racing creates, a missing group is
``NotFound``). Adding members is one ``INSERT ... ON CONFLICT DO NOTHING`` and removing
one is one ``DELETE``, both under the group's lock, so concurrent adds and removes of one
member leave either one row or none. Replacing the roles is one delete and one insert
under the lock. Deleting a group removes its ``group_members`` and ``group_roles`` rows,
and the profile fields bound to it with their values, by foreign-key cascade.
``set_external_id`` stores a SCIM client's id of the group (docs/scim.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Final

import msgspec
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import FieldError, InvalidArgument, NotFound
from idp_common.storage.db.models import Group, GroupMember, GroupRole, Role, User
from idp_common.storage.repos.catalogue import (
    NamedEntries,
    replace_links,
    rows_by_owner,
    uuid_or_none,
)
from idp_common.storage.repos.paging import Page, keyset_items
from idp_common.storage.repos.roles import role_scope_values


class RoleRef(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str


class GroupRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    name: str
    description: str
    roles: list[RoleRef]
    member_count: int
    created_at: datetime
    updated_at: datetime


class MemberRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    email: str
    username: str | None
    display_name: str


async def _details(session: AsyncSession, groups: Sequence[Group]) -> list[GroupRead]:
    """Each group with its roles (by name) and member count, in two queries for the lot."""
    ids = [g.id for g in groups]
    rows = await session.execute(
        select(GroupRole.group_id, Role.id, Role.name)
        .join(Role, Role.id == GroupRole.role_id)
        .where(GroupRole.group_id.in_(ids))
        .order_by(Role.name, Role.id)
    )
    roles = rows_by_owner(((g, RoleRef(id=r, name=n)) for g, r, n in rows), ids)
    counts = await session.execute(
        select(GroupMember.group_id, func.count())
        .where(GroupMember.group_id.in_(ids))
        .group_by(GroupMember.group_id)
    )
    members = dict(counts.all())
    return [
        GroupRead(
            g.id,
            g.name,
            g.description,
            roles[g.id],
            members.get(g.id, 0),
            g.created_at,
            g.updated_at,
        )
        for g in groups
    ]


GROUPS: Final = NamedEntries(Group, "group", _details)
list_groups = GROUPS.page
get_group = GROUPS.get
create_group = GROUPS.create
update_group = GROUPS.update
delete_group = GROUPS.delete


def _member(user: User) -> MemberRead:
    return MemberRead(user.id, user.email, user.username, user.display_name)


async def list_members(
    session: AsyncSession, group_id: str, *, limit: int, cursor: str | None
) -> Page[MemberRead]:
    """Members of the group in email order."""
    group = await GROUPS.row(session, group_id, lock=False)
    query = select(User).join(GroupMember, GroupMember.user_id == User.id)
    return await keyset_items(
        session,
        query.where(GroupMember.group_id == group.id),
        order_by=[User.email, User.id],
        read=_member,
        limit=limit,
        cursor=cursor,
    )


async def _existing(
    session: AsyncSession, model: type[User] | type[Role], values: Sequence[str], field: str
) -> list[uuid.UUID]:
    """The ids of ``values`` in order, duplicates once; 422 naming ``field[i]`` for each
    value that is not the id of a row of ``model``."""
    keys = [uuid_or_none(v) for v in values]
    wanted = [k for k in keys if k is not None]
    found = set(await session.scalars(select(model.id).where(model.id.in_(wanted))))
    noun = model.__tablename__.removesuffix("s")
    errors = [
        FieldError(f"{field}[{i}]", f"no {noun} with this id")
        for i, key in enumerate(keys)
        if key not in found
    ]
    if errors:
        raise InvalidArgument(f"unknown {field}", code=f"admin.unknown_{field}", errors=errors)
    return [k for k in dict.fromkeys(keys) if k is not None]


async def add_members(
    session: AsyncSession, group_id: str, user_ids: Sequence[str]
) -> tuple[GroupRead, list[uuid.UUID]]:
    """Add the users; one already a member stays so. Returns the group and who was added."""
    group = await GROUPS.row(session, group_id, lock=True)
    users = await _existing(session, User, user_ids, "members")
    if not users:
        return await GROUPS.read(session, group), []
    added = await session.scalars(
        insert(GroupMember)
        .values([{"group_id": group.id, "user_id": u} for u in users])
        .on_conflict_do_nothing()
        .returning(GroupMember.user_id)
    )
    return await GROUPS.read(session, group), list(added)


async def remove_member(
    session: AsyncSession, group_id: str, user_id: str
) -> tuple[uuid.UUID, uuid.UUID]:
    """Remove one membership; 404 when the group is missing or the user is not a member.
    Returns the group's and the user's ids."""
    group = await GROUPS.row(session, group_id, lock=True)
    key = uuid_or_none(user_id)
    removed = None
    if key is not None:
        removed = await session.scalar(
            delete(GroupMember)
            .where(GroupMember.group_id == group.id, GroupMember.user_id == key)
            .returning(GroupMember.user_id)
        )
    if removed is None:
        raise NotFound("this user is not a member of the group", code="admin.member_not_found")
    return group.id, removed


async def group_scope_values(session: AsyncSession, group_id: uuid.UUID) -> set[str]:
    """The scopes a member of the group holds through it (its roles' scopes)."""
    roles = await session.scalars(select(GroupRole.role_id).where(GroupRole.group_id == group_id))
    return await role_scope_values(session, roles)


async def set_group_roles(
    session: AsyncSession, group_id: str, role_ids: Sequence[str]
) -> tuple[GroupRead, list[uuid.UUID]]:
    """Replace the group's roles (duplicates count once). Returns the group and the roles
    it did not have before."""
    group = await GROUPS.row(session, group_id, lock=True)
    before = set(
        await session.scalars(select(GroupRole.role_id).where(GroupRole.group_id == group.id))
    )
    roles = await _existing(session, Role, role_ids, "roles")
    await replace_links(session, GroupRole.group_id, GroupRole.role_id, group.id, roles)
    await GROUPS.touch(session, group)
    return await GROUPS.read(session, group), [r for r in roles if r not in before]


async def set_external_id(
    session: AsyncSession, group_id: uuid.UUID, external_id: str | None
) -> None:
    """A SCIM client's own id of the group (docs/scim.md); the caller holds the row lock."""
    await session.execute(
        update(Group)
        .where(Group.id == group_id)
        .values(external_id=external_id, updated_at=func.now())
    )
