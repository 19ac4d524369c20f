"""A person's effective scopes and where each one comes from (docs/design.md "The provider's
own API and its permissions"; contract §4 ``GET /admin/users/{user_id}/effective-scopes``).

Effective scopes: direct grants, plus scopes of the person's roles, plus scopes of the roles of
the person's groups, plus the self-service scopes every person holds. The administration
API explains them here; the self-service API can show the same.

:func:`person_is_active`: does the person exist and is not disabled (the question a
token's standing asks with more, :mod:`idp_common.storage.repos.standing`).

:func:`list_scope_sources` reads every grant path in one ``UNION ALL`` query, whatever
the number of roles and groups (no query per role or group). The set of scope values it
yields is exactly what :func:`idp_common.storage.repos.users.effective_scopes` returns, which
token issuance uses.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from typing import Any, TypeAlias

import msgspec
from sqlalchemy import CompoundSelect, Uuid, cast, literal, null, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.types import String

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from idp_common.storage.db.engine import DriverConnection
from idp_common.storage.db.models import (
    Group,
    GroupMember,
    GroupRole,
    Role,
    RoleScope,
    Scope,
    UserRole,
    UserScope,
)
from idp_common.storage.repos.standing import person_standing

__all__ = [
    "DefaultSource",
    "DirectSource",
    "EffectiveScope",
    "GroupSource",
    "RoleSource",
    "ScopeSource",
    "list_scope_sources",
    "person_is_active",
]


class DirectSource(msgspec.Struct, frozen=True, tag="direct", tag_field="kind"):
    """Granted to the person directly (``PUT /admin/users/{user_id}/scopes``)."""


class RoleSource(msgspec.Struct, frozen=True, tag="role", tag_field="kind", rename="camel"):
    """Held by a role given to the person."""

    role_id: uuid.UUID
    role_name: str


class GroupSource(msgspec.Struct, frozen=True, tag="group", tag_field="kind", rename="camel"):
    """Held by a role given to a group the person is a member of."""

    group_id: uuid.UUID
    group_name: str
    role_id: uuid.UUID
    role_name: str


class DefaultSource(msgspec.Struct, frozen=True, tag="default", tag_field="kind"):
    """A self-service scope: every person holds it."""


ScopeSource: TypeAlias = DirectSource | RoleSource | GroupSource | DefaultSource


class EffectiveScope(msgspec.Struct, frozen=True):
    scope: str
    sources: list[ScopeSource]


def _grant_paths(user_id: uuid.UUID) -> CompoundSelect[Any]:
    """One SELECT per grant path, same columns: value, kind, role, group."""
    no_id = cast(null(), Uuid)
    no_name = cast(null(), String)
    direct = (
        select(
            Scope.value,
            literal("direct").label("kind"),
            no_id.label("role_id"),
            no_name.label("role_name"),
            no_id.label("group_id"),
            no_name.label("group_name"),
        )
        .join(UserScope, UserScope.scope_id == Scope.id)
        .where(UserScope.user_id == user_id)
    )
    via_roles = (
        select(Scope.value, literal("role"), Role.id, Role.name, no_id, no_name)
        .join(RoleScope, RoleScope.scope_id == Scope.id)
        .join(Role, Role.id == RoleScope.role_id)
        .join(UserRole, UserRole.role_id == Role.id)
        .where(UserRole.user_id == user_id)
    )
    via_groups = (
        select(Scope.value, literal("group"), Role.id, Role.name, Group.id, Group.name)
        .join(RoleScope, RoleScope.scope_id == Scope.id)
        .join(Role, Role.id == RoleScope.role_id)
        .join(GroupRole, GroupRole.role_id == Role.id)
        .join(Group, Group.id == GroupRole.group_id)
        .join(GroupMember, GroupMember.group_id == Group.id)
        .where(GroupMember.user_id == user_id)
    )
    return union_all(direct, via_roles, via_groups)


def _source(kind: str, role_id: uuid.UUID | None, role_name: str | None,
            group_id: uuid.UUID | None, group_name: str | None) -> ScopeSource:  # fmt: skip
    if kind == "role" and role_id is not None and role_name is not None:
        return RoleSource(role_id=role_id, role_name=role_name)
    if kind == "group" and role_id and role_name is not None and group_id and group_name:
        return GroupSource(
            group_id=group_id, group_name=group_name, role_id=role_id, role_name=role_name
        )
    return DirectSource()


async def list_scope_sources(session: AsyncSession, user_id: uuid.UUID) -> list[EffectiveScope]:
    """Every scope ``user_id`` holds, sorted by value, each with all of its sources
    (direct first, then roles by name, then groups by name). One query. An unknown person
    gets only the default (self-service) scopes: the caller checks existence."""
    paths = _grant_paths(user_id).subquery()
    rows = await session.execute(select(paths))
    sources: dict[str, list[ScopeSource]] = defaultdict(list)
    for value, kind, role_id, role_name, group_id, group_name in rows:
        sources[value].append(_source(kind, role_id, role_name, group_id, group_name))
    for value in SELF_SERVICE_SCOPES:
        sources[value].append(DefaultSource())
    return [
        EffectiveScope(scope=value, sources=sorted(found, key=_source_order))
        for value, found in sorted(sources.items())
    ]


def _source_order(source: ScopeSource) -> tuple[int, str, str]:
    if isinstance(source, GroupSource):
        return (2, source.group_name, source.role_name)
    if isinstance(source, RoleSource):
        return (1, source.role_name, "")
    if isinstance(source, DirectSource):
        return (0, "", "")
    return (3, "", "")


async def person_is_active(conn: DriverConnection, user_id: uuid.UUID) -> bool:
    """Whether ``user_id`` names a person who exists and is not disabled."""
    return (await person_standing(conn, user_id)).active
