"""Groups, their members and their roles (spec part 4 "Admin: groups").

Every function runs in the caller's transaction. Writes lock the group row first
(``SELECT ... FOR UPDATE``), so concurrent writes to one group run one after the other.
A missing group is ``NotFound``; a taken name is ``Conflict``. Deleting a group removes
its ``group_members`` and ``group_roles`` rows, and the profile fields bound to it with
their values, by foreign-key cascade in the same transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import msgspec
from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from admin_service.store.roles import name_taken, now, parse_id, role_scope_values
from idp_common.errors import FieldError, InvalidArgument, NotFound
from idp_common.storage.db.models import Group, GroupMember, GroupRole, Role, User
from idp_common.storage.repos.paging import Page, keyset_page


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


def _group_not_found() -> NotFound:
    return NotFound("no group with this id", code="admin.group_not_found")


async def _details(session: AsyncSession, groups: Sequence[Group]) -> list[GroupRead]:
    """Each group with its roles (by name) and member count, in two queries for the lot."""
    ids = [g.id for g in groups]
    roles: dict[uuid.UUID, list[RoleRef]] = {i: [] for i in ids}
    rows = await session.execute(
        select(GroupRole.group_id, Role.id, Role.name)
        .join(Role, Role.id == GroupRole.role_id)
        .where(GroupRole.group_id.in_(ids))
        .order_by(Role.name, Role.id)
    )
    for group_id, role_id, role_name in rows.tuples():
        roles[group_id].append(RoleRef(id=role_id, name=role_name))
    counts = await session.execute(
        select(GroupMember.group_id, func.count())
        .where(GroupMember.group_id.in_(ids))
        .group_by(GroupMember.group_id)
    )
    members = dict(counts.tuples().all())
    return [
        GroupRead(
            id=g.id,
            name=g.name,
            description=g.description,
            roles=roles[g.id],
            member_count=members.get(g.id, 0),
            created_at=g.created_at,
            updated_at=g.updated_at,
        )
        for g in groups
    ]


async def _read(session: AsyncSession, group: Group) -> GroupRead:
    return (await _details(session, [group]))[0]


async def _found(session: AsyncSession, group_id: str, *, lock: bool) -> Group:
    key = parse_id(group_id)
    group = None if key is None else await session.get(Group, key, with_for_update=lock)
    if group is None:
        raise _group_not_found()
    return group


async def _flush_named(session: AsyncSession) -> None:
    """Flush, turning the unique violation on ``name`` into a 409 (two racing creates)."""
    try:
        await session.flush()
    except IntegrityError as exc:
        raise name_taken("group") from exc


async def list_groups(session: AsyncSession, *, limit: int, cursor: str | None) -> Page[GroupRead]:
    """Groups in name order."""
    rows: list[Group]
    rows, next_cursor = await keyset_page(
        session,
        select(Group),
        order_by=[Group.name.expression, Group.id.expression],
        key_of=lambda g: (g.name, g.id),
        limit=limit,
        cursor=cursor,
    )
    return Page(items=await _details(session, rows), next_cursor=next_cursor)


async def get_group(session: AsyncSession, group_id: str) -> GroupRead:
    return await _read(session, await _found(session, group_id, lock=False))


async def create_group(session: AsyncSession, *, name: str, description: str) -> GroupRead:
    if await session.scalar(select(Group.id).where(Group.name == name)) is not None:
        raise name_taken("group")
    group = Group(name=name, description=description)
    session.add(group)
    await _flush_named(session)
    return await _read(session, group)


async def update_group(
    session: AsyncSession, group_id: str, *, name: str | None, description: str | None
) -> tuple[GroupRead, list[str]]:
    """Apply the given members; return the group and the names of the members that changed."""
    group = await _found(session, group_id, lock=True)
    changed: list[str] = []
    if name is not None and name != group.name:
        if await session.scalar(select(Group.id).where(Group.name == name)) is not None:
            raise name_taken("group")
        group.name = name
        changed.append("name")
    if description is not None and description != group.description:
        group.description = description
        changed.append("description")
    if changed:
        await _flush_named(session)
    return await _read(session, group), changed


async def delete_group(session: AsyncSession, group_id: str) -> uuid.UUID:
    """Delete the group; memberships, role links and bound profile fields go by cascade."""
    group = await _found(session, group_id, lock=True)
    await session.delete(group)
    await session.flush()
    return group.id


async def list_members(
    session: AsyncSession, group_id: str, *, limit: int, cursor: str | None
) -> Page[MemberRead]:
    """Members of the group in email order."""
    group = await _found(session, group_id, lock=False)
    rows: list[User]
    rows, next_cursor = await keyset_page(
        session,
        select(User)
        .join(GroupMember, GroupMember.user_id == User.id)
        .where(GroupMember.group_id == group.id),
        order_by=[User.email.expression, User.id.expression],
        key_of=lambda u: (u.email, u.id),
        limit=limit,
        cursor=cursor,
    )
    items = [
        MemberRead(id=u.id, email=u.email, username=u.username, display_name=u.display_name)
        for u in rows
    ]
    return Page(items=items, next_cursor=next_cursor)


async def _existing(
    session: AsyncSession,
    model: type[User] | type[Role],
    values: Sequence[str],
    *,
    field: str,
    noun: str,
) -> list[uuid.UUID]:
    """The ids of ``values`` in order, duplicates once; 422 naming ``field[i]`` for each
    value that is not the id of a row of ``model``."""
    keys = [parse_id(v) for v in values]
    wanted = [k for k in keys if k is not None]
    found = set(await session.scalars(select(model.id).where(model.id.in_(wanted))))
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
    group = await _found(session, group_id, lock=True)
    users = await _existing(session, User, user_ids, field="members", noun="user")
    if not users:
        return await _read(session, group), []
    added = await session.scalars(
        insert(GroupMember)
        .values([{"group_id": group.id, "user_id": u} for u in users])
        .on_conflict_do_nothing()
        .returning(GroupMember.user_id)
    )
    return await _read(session, group), list(added)


async def remove_member(
    session: AsyncSession, group_id: str, user_id: str
) -> tuple[uuid.UUID, uuid.UUID]:
    """Remove one membership; 404 when the group is missing or the user is not a member.
    Returns the group's and the user's ids."""
    group = await _found(session, group_id, lock=True)
    key = parse_id(user_id)
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
    group = await _found(session, group_id, lock=True)
    before = set(
        await session.scalars(select(GroupRole.role_id).where(GroupRole.group_id == group.id))
    )
    roles = await _existing(session, Role, role_ids, field="roles", noun="role")
    await session.execute(delete(GroupRole).where(GroupRole.group_id == group.id))
    if roles:
        await session.execute(
            insert(GroupRole).values([{"group_id": group.id, "role_id": r} for r in roles])
        )
    group.updated_at = await now(session)
    await session.flush()
    return await _read(session, group), [r for r in roles if r not in before]
