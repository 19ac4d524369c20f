"""A person's direct grants, the one owner of ``user_roles`` and ``user_scopes`` (contract §4
"Admin: users"), and the scopes a person holds in all (:func:`effective_scopes`).

Contract (every function runs in the caller's transaction):
- :func:`set_user_roles` and :func:`set_user_scopes` replace the whole set (``DELETE``
  then ``INSERT``); an unknown role id or scope value is refused before anything is
  written, with a 422 naming each ``roles[i]`` / ``scopes[i]`` at fault. Callers hold the
  person's row lock (:func:`idp_common.storage.repos.users.lock_user`), so two
  replacements of one person's grants run one after the other and the last one stands;
- :func:`give_role` adds one role and is idempotent (``ON CONFLICT DO NOTHING``).
"""

from __future__ import annotations

import uuid
from collections.abc import Container, Iterable, Sequence

import msgspec
from sqlalchemy import select, union
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import FieldError, InvalidArgument
from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from idp_common.storage.db.models import (
    GroupMember,
    GroupRole,
    Role,
    RoleScope,
    Scope,
    UserRole,
    UserScope,
)
from idp_common.storage.repos.catalogue import replace_links, uuid_or_none


class RoleRef(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str


async def user_roles(session: AsyncSession, user_id: uuid.UUID) -> list[RoleRef]:
    """The roles given to the person directly (not through groups), by name."""
    rows = await session.execute(
        select(Role.id, Role.name)
        .join(UserRole, UserRole.role_id == Role.id)
        .where(UserRole.user_id == user_id)
        .order_by(Role.name)
    )
    return [RoleRef(id=role_id, name=name) for role_id, name in rows]


async def user_scopes(session: AsyncSession, user_id: uuid.UUID) -> list[str]:
    """The scopes granted to the person directly, by value."""
    rows = await session.scalars(
        select(Scope.value)
        .join(UserScope, UserScope.scope_id == Scope.id)
        .where(UserScope.user_id == user_id)
        .order_by(Scope.value)
    )
    return list(rows)


def _refuse_unknown(
    member: str, given: Iterable[object], known: Container[object], *, noun: str, problem: str
) -> None:
    """422 naming ``member[i]`` for each given value not in ``known``."""
    errors = [
        FieldError(f"{member}[{i}]", problem)
        for i, value in enumerate(given)
        if value is None or value not in known
    ]
    if errors:
        raise InvalidArgument(f"{member}: unknown {noun}", errors=errors)


async def set_user_roles(
    session: AsyncSession, user_id: uuid.UUID, role_ids: Sequence[str]
) -> list[RoleRef]:
    """Replace the person's roles with ``role_ids``; the roles now given, by name."""
    parsed = [uuid_or_none(value) for value in role_ids]
    wanted = {key for key in parsed if key is not None}
    query = select(Role.id, Role.name).where(Role.id.in_(wanted))
    found = dict((await session.execute(query)).all())
    _refuse_unknown("roles", parsed, found, noun="role", problem="no role with this id")
    await replace_links(session, UserRole.user_id, UserRole.role_id, user_id, list(found))
    return sorted((RoleRef(id=k, name=n) for k, n in found.items()), key=lambda r: r.name)


async def set_user_scopes(
    session: AsyncSession, user_id: uuid.UUID, values: Sequence[str]
) -> list[str]:
    """Replace the person's direct grants with ``values``; the values now granted, sorted."""
    query = select(Scope.value, Scope.id).where(Scope.value.in_(values))
    found = dict((await session.execute(query)).all())
    _refuse_unknown("scopes", values, found, noun="scope", problem="no scope with this value")
    await replace_links(session, UserScope.user_id, UserScope.scope_id, user_id, [*found.values()])
    return sorted(found)


async def give_role(session: AsyncSession, user_id: uuid.UUID, role_id: uuid.UUID) -> None:
    """Give the person one role (nothing when they have it already)."""
    await session.execute(
        insert(UserRole).values(user_id=user_id, role_id=role_id).on_conflict_do_nothing()
    )


async def effective_scopes(session: AsyncSession, user_id: uuid.UUID) -> set[str]:
    """Direct grants, plus roles' scopes, plus scopes of the roles of the user's groups, plus the
    self-service scopes every user holds (docs/design.md "The provider's own API")."""
    direct = select(UserScope.scope_id).where(UserScope.user_id == user_id)
    via_roles = (
        select(RoleScope.scope_id)
        .join(UserRole, UserRole.role_id == RoleScope.role_id)
        .where(UserRole.user_id == user_id)
    )
    via_groups = (
        select(RoleScope.scope_id)
        .join(GroupRole, GroupRole.role_id == RoleScope.role_id)
        .join(GroupMember, GroupMember.group_id == GroupRole.group_id)
        .where(GroupMember.user_id == user_id)
    )
    ids = union(direct, via_roles, via_groups).subquery()
    values = await session.scalars(select(Scope.value).where(Scope.id.in_(select(ids.c.scope_id))))
    return set(values) | set(SELF_SERVICE_SCOPES)
