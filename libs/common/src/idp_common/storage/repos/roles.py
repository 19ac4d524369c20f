"""Roles and the scopes they hold: the one writer of ``roles`` and ``role_scopes`` (spec
part 4 "Admin: roles").

Every function runs in the caller's transaction; the shared contract of named entries
is :mod:`idp_common.storage.repos.catalogue` (writes lock the role row, a taken name is a
``Conflict`` even for two racing creates, a missing role is ``NotFound``). Deleting a role
removes its ``role_scopes``, ``user_roles`` and ``group_roles`` rows by foreign-key
cascade in the same statement. The seeded :data:`ADMIN_ROLE` keeps its name and is never
deleted (``Conflict``). Replacing a role's scopes is one delete and one insert under the
role's lock, so concurrent replaces leave one of the two sets, never a mix.

:func:`ensure_role` is the operator tool's idempotent form (``ON CONFLICT DO NOTHING``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Final

import msgspec
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import FieldError, InvalidArgument
from idp_common.storage.db.models import Role, RoleScope, Scope
from idp_common.storage.repos.catalogue import (
    NamedEntries,
    add_links,
    replace_links,
    rows_by_owner,
)

#: The role the operator tool seeds and finds by name to hand it new admin scopes.
ADMIN_ROLE: Final = "administrator"


class RoleRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    name: str
    description: str
    scopes: list[str]
    created_at: datetime
    updated_at: datetime


async def _scope_values(
    session: AsyncSession, role_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, list[str]]:
    rows = await session.execute(
        select(RoleScope.role_id, Scope.value)
        .join(Scope, Scope.id == RoleScope.scope_id)
        .where(RoleScope.role_id.in_(role_ids))
        .order_by(Scope.value)
    )
    return rows_by_owner(rows, role_ids)


async def _details(session: AsyncSession, roles: Sequence[Role]) -> list[RoleRead]:
    scopes = await _scope_values(session, [r.id for r in roles])
    return [
        RoleRead(r.id, r.name, r.description, scopes[r.id], r.created_at, r.updated_at)
        for r in roles
    ]


ROLES: Final = NamedEntries(Role, "role", _details, protected=frozenset({ADMIN_ROLE}))
list_roles = ROLES.page
get_role = ROLES.get
create_role = ROLES.create
update_role = ROLES.update
delete_role = ROLES.delete


async def _scope_ids(session: AsyncSession, values: Sequence[str]) -> list[uuid.UUID]:
    """Ids of ``values`` in order; 422 naming ``scopes[i]`` for each value that is not a
    permission of an API (the standard OIDC scopes grant nothing through a role)."""
    rows = await session.execute(
        select(Scope.value, Scope.id).where(Scope.value.in_(values), Scope.api_id.is_not(None))
    )
    known = dict(rows.all())
    errors = [
        FieldError(f"scopes[{i}]", "not a permission of any API")
        for i, value in enumerate(values)
        if value not in known
    ]
    if errors:
        raise InvalidArgument("unknown permissions", code="admin.unknown_scope", errors=errors)
    return [known[value] for value in dict.fromkeys(values)]


async def role_scope_values(session: AsyncSession, role_ids: Iterable[uuid.UUID]) -> set[str]:
    """Every scope held by any of ``role_ids`` (unknown ids hold nothing)."""
    ids = list(role_ids)
    if not ids:
        return set()
    return {value for values in (await _scope_values(session, ids)).values() for value in values}


async def set_role_scopes(
    session: AsyncSession, role_id: str, values: Sequence[str]
) -> tuple[RoleRead, list[str]]:
    """Replace the role's scopes with ``values`` (duplicates count once). Returns the role
    and the scopes it did not hold before (sorted)."""
    role = await ROLES.row(session, role_id, lock=True)
    before = set((await _scope_values(session, [role.id]))[role.id])
    scope_ids = await _scope_ids(session, values)
    await replace_links(session, RoleScope.role_id, RoleScope.scope_id, role.id, scope_ids)
    await ROLES.touch(session, role)
    read = await ROLES.read(session, role)
    return read, sorted(set(read.scopes) - before)


async def ensure_role(
    session: AsyncSession, *, name: str, description: str, scopes: Iterable[str]
) -> int:
    """Insert the role unless its name exists, and grant it whichever of ``scopes`` exist
    and it lacks; returns how many grants were added. Grants nothing it holds again."""
    await session.execute(
        insert(Role)
        .values(name=name, description=description)
        .on_conflict_do_nothing(index_elements=[Role.name])
    )
    role_id = (await session.execute(select(Role.id).where(Role.name == name))).scalar_one()
    scope_ids = await session.scalars(select(Scope.id).where(Scope.value.in_(list(scopes))))
    return await add_links(session, RoleScope.role_id, RoleScope.scope_id, role_id, list(scope_ids))


async def role_id_by_name(session: AsyncSession, name: str) -> uuid.UUID | None:
    """The id of the role called ``name``; None when there is none."""
    return await session.scalar(select(Role.id).where(Role.name == name))
