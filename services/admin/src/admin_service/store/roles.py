"""Roles and the scopes they hold (spec part 4 "Admin: roles").

Every function runs in the caller's transaction. Writes lock the role row first
(``SELECT ... FOR UPDATE``), so two concurrent writes to one role run one after the
other and a replace never meets the other's half-written link rows. A missing role is
``NotFound``; a taken name is ``Conflict``. Deleting a role removes its ``role_scopes``,
``user_roles`` and ``group_roles`` rows by foreign-key cascade, in the same transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime

import msgspec
from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.operations.seed import ADMIN_ROLE
from idp_common.storage.db.models import Role, RoleScope, Scope
from idp_common.storage.repos.paging import Page, keyset_page


class RoleRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    name: str
    description: str
    scopes: list[str]
    created_at: datetime
    updated_at: datetime


def parse_id(value: str) -> uuid.UUID | None:
    """The UUID in a path segment, or None: a malformed id names nothing, so it is a 404."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def role_not_found() -> NotFound:
    return NotFound("no role with this id", code="admin.role_not_found")


def name_taken(kind: str) -> Conflict:
    return Conflict(
        f"name: a {kind} with this name already exists",
        code=f"admin.{kind}_name_taken",
        errors=[FieldError("name", f"a {kind} with this name already exists")],
    )


async def _scope_values(
    session: AsyncSession, role_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, list[str]]:
    rows = await session.execute(
        select(RoleScope.role_id, Scope.value)
        .join(Scope, Scope.id == RoleScope.scope_id)
        .where(RoleScope.role_id.in_(role_ids))
        .order_by(Scope.value)
    )
    values: dict[uuid.UUID, list[str]] = {role_id: [] for role_id in role_ids}
    for role_id, value in rows.tuples():
        values[role_id].append(value)
    return values


def _read(role: Role, scopes: list[str]) -> RoleRead:
    return RoleRead(
        id=role.id,
        name=role.name,
        description=role.description,
        scopes=scopes,
        created_at=role.created_at,
        updated_at=role.updated_at,
    )


async def now(session: AsyncSession) -> datetime:
    """The transaction's time, as ``updated_at`` columns take it."""
    value: datetime = (await session.execute(select(func.now()))).scalar_one()
    return value


async def _locked(session: AsyncSession, role_id: str) -> Role:
    key = parse_id(role_id)
    role = None if key is None else await session.get(Role, key, with_for_update=True)
    if role is None:
        raise role_not_found()
    return role


async def _flush_named(session: AsyncSession) -> None:
    """Flush, turning the unique violation on ``name`` into a 409 (two racing creates)."""
    try:
        await session.flush()
    except IntegrityError as exc:
        raise name_taken("role") from exc


async def list_roles(session: AsyncSession, *, limit: int, cursor: str | None) -> Page[RoleRead]:
    """Roles in name order."""
    rows: list[Role]
    rows, next_cursor = await keyset_page(
        session,
        select(Role),
        order_by=[Role.name.expression, Role.id.expression],
        key_of=lambda r: (r.name, r.id),
        limit=limit,
        cursor=cursor,
    )
    scopes = await _scope_values(session, [r.id for r in rows])
    return Page(items=[_read(r, scopes[r.id]) for r in rows], next_cursor=next_cursor)


async def get_role(session: AsyncSession, role_id: str) -> RoleRead:
    key = parse_id(role_id)
    role = None if key is None else await session.get(Role, key)
    if role is None:
        raise role_not_found()
    return _read(role, (await _scope_values(session, [role.id]))[role.id])


async def create_role(session: AsyncSession, *, name: str, description: str) -> RoleRead:
    if await session.scalar(select(Role.id).where(Role.name == name)) is not None:
        raise name_taken("role")
    role = Role(name=name, description=description)
    session.add(role)
    await _flush_named(session)
    return _read(role, [])


async def update_role(
    session: AsyncSession, role_id: str, *, name: str | None, description: str | None
) -> tuple[RoleRead, list[str]]:
    """Apply the given members; return the role and the names of the members that changed.

    The seeded ``administrator`` role keeps its name (409): the operator tool finds it by
    that name to hand it the scopes of a new release.
    """
    role = await _locked(session, role_id)
    changed: list[str] = []
    if name is not None and name != role.name:
        if role.name == ADMIN_ROLE:
            raise Conflict(
                f"name: the seeded {ADMIN_ROLE} role cannot be renamed",
                code="admin.role_protected",
            )
        if await session.scalar(select(Role.id).where(Role.name == name)) is not None:
            raise name_taken("role")
        role.name = name
        changed.append("name")
    if description is not None and description != role.description:
        role.description = description
        changed.append("description")
    if changed:
        await _flush_named(session)
    return _read(role, (await _scope_values(session, [role.id]))[role.id]), changed


async def delete_role(session: AsyncSession, role_id: str) -> uuid.UUID:
    """Delete the role; its link rows go by cascade. The seeded administrator role is 409."""
    role = await _locked(session, role_id)
    if role.name == ADMIN_ROLE:
        raise Conflict(
            f"the seeded {ADMIN_ROLE} role cannot be deleted", code="admin.role_protected"
        )
    await session.delete(role)
    await session.flush()
    return role.id


async def _scope_ids(session: AsyncSession, values: Sequence[str]) -> list[uuid.UUID]:
    """Ids of ``values`` in order; 422 naming ``scopes[i]`` for each value that is not a
    permission of an API (the standard OIDC scopes grant nothing through a role)."""
    rows = await session.execute(
        select(Scope.value, Scope.id).where(Scope.value.in_(values), Scope.api_id.is_not(None))
    )
    known = dict(rows.tuples().all())
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
    role = await _locked(session, role_id)
    before = set((await _scope_values(session, [role.id]))[role.id])
    scope_ids = await _scope_ids(session, values)
    await session.execute(delete(RoleScope).where(RoleScope.role_id == role.id))
    if scope_ids:
        await session.execute(
            insert(RoleScope).values([{"role_id": role.id, "scope_id": s} for s in scope_ids])
        )
    role.updated_at = await now(session)
    await session.flush()
    after = (await _scope_values(session, [role.id]))[role.id]
    return _read(role, after), sorted(set(after) - before)
