"""Storage of resource APIs and their scopes (spec part 2 "Resource API and scope").

Rules kept here, whoever calls:
- ``name`` and ``audience`` of an API and ``value`` of a scope are unique (409 naming the
  field, checked first and again by the unique constraints).
- A scope's ``value`` is ``<api name>:<resource>:<action>``, so an API that has scopes keeps
  its name (renaming would orphan the prefix of every value already issued in tokens).
- The provider's own API (``idp``) is never renamed, re-pointed or deleted, and the
  catalogue's ``idp:*`` scopes are never deleted: the admin permissions hang on them.
- Standard OIDC scopes (``api_id`` NULL) are read-only here.
- Deleting an API deletes its scopes and every grant of them (FK ``ON DELETE CASCADE``).
"""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.protocol.constants import ADMIN_SCOPES, IDP_API_NAME, SELF_SERVICE_SCOPES
from idp_common.storage.db.models import Api, Scope
from idp_common.storage.repos.paging import keyset_page

PROVIDER_SCOPES = frozenset((*ADMIN_SCOPES, *SELF_SERVICE_SCOPES))


class ApiRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    name: str
    audience: str
    created_at: datetime
    updated_at: datetime


class ScopeRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    api_id: uuid.UUID | None
    value: str
    description: str
    created_at: datetime


class ApiPage(msgspec.Struct, frozen=True, rename="camel"):
    items: list[ApiRead]
    next_cursor: str | None


class ScopePage(msgspec.Struct, frozen=True, rename="camel"):
    items: list[ScopeRead]
    next_cursor: str | None


def api_read(row: Api) -> ApiRead:
    return ApiRead(
        id=row.id,
        name=row.name,
        audience=row.audience,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def scope_read(row: Scope) -> ScopeRead:
    return ScopeRead(
        id=row.id,
        api_id=row.api_id,
        value=row.value,
        description=row.description,
        created_at=row.created_at,
    )


def parse_id(raw: str, what: str) -> uuid.UUID:
    """A path id; anything that is not a UUID names nothing, so it is a 404."""
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise NotFound(f"no {what} with this id", code=f"admin.{what}_not_found") from None


def _taken(kind: str, field: str) -> Conflict:
    return Conflict(
        f"{field} is already used by another {kind}",
        code=f"admin.{kind}_{field}_taken",
        errors=[FieldError(field, f"already used by another {kind}")],
    )


async def _flush(session: AsyncSession, kind: str, fields: tuple[str, ...]) -> None:
    """Flush; a unique violation lost to a concurrent writer is still a 409 naming the field."""
    try:
        await session.flush()
    except IntegrityError as exc:
        message = str(exc.orig)
        field = next((f for f in fields if f"_{f}" in message), fields[0])
        raise _taken(kind, field) from None


# --- APIs ---------------------------------------------------------------------------------


async def list_apis(session: AsyncSession, *, limit: int, cursor: str | None) -> ApiPage:
    rows: list[Api]
    rows, next_cursor = await keyset_page(
        session,
        select(Api),
        order_by=[Api.name.expression, Api.id.expression],
        key_of=lambda r: (r.name, r.id),
        limit=limit,
        cursor=cursor,
    )
    return ApiPage(items=[api_read(r) for r in rows], next_cursor=next_cursor)


async def get_api(session: AsyncSession, api_id: uuid.UUID) -> Api:
    row = await session.get(Api, api_id)
    if row is None:
        raise NotFound("no api with this id", code="admin.api_not_found")
    return row


async def _check_unique_api(
    session: AsyncSession, name: str | None, audience: str | None, exclude: uuid.UUID | None
) -> None:
    for field, column, value in (("name", Api.name, name), ("audience", Api.audience, audience)):
        if value is None:
            continue
        query = select(Api.id).where(column == value)
        if exclude is not None:
            query = query.where(Api.id != exclude)
        if await session.scalar(query) is not None:
            raise _taken("api", field)


async def create_api(session: AsyncSession, *, name: str, audience: str) -> Api:
    await _check_unique_api(session, name, audience, None)
    row = Api(name=name, audience=audience)
    session.add(row)
    await _flush(session, "api", ("name", "audience"))
    return row


async def _scope_count(session: AsyncSession, api_id: uuid.UUID) -> int:
    query = select(func.count()).select_from(Scope).where(Scope.api_id == api_id)
    return int(await session.scalar(query) or 0)


async def update_api(
    session: AsyncSession, api_id: uuid.UUID, *, name: str | None, audience: str | None
) -> tuple[Api, list[str]]:
    """Apply the given fields; answer the row and the names of the fields that changed."""
    row = await get_api(session, api_id)
    changed = [
        f
        for f, v in (("name", name), ("audience", audience))
        if v is not None and v != getattr(row, f)
    ]
    if not changed:
        return row, []
    if row.name == IDP_API_NAME:
        raise Conflict(
            "the provider's own API keeps its name and audience", code="admin.api_protected"
        )
    if "name" in changed and await _scope_count(session, row.id):
        raise Conflict(
            "name cannot change while the API has scopes (their values begin with it)",
            code="admin.api_name_in_use",
            errors=[FieldError("name", "cannot change while the API has scopes")],
        )
    await _check_unique_api(
        session,
        name if "name" in changed else None,
        audience if "audience" in changed else None,
        row.id,
    )
    if "name" in changed:
        row.name = name  # type: ignore[assignment]  # not None: it is in ``changed``
    if "audience" in changed:
        row.audience = audience  # type: ignore[assignment]
    await _flush(session, "api", ("name", "audience"))
    return row, changed


async def delete_api(session: AsyncSession, api_id: uuid.UUID) -> Api:
    """Delete the API; the database deletes its scopes and their grants with it."""
    row = await get_api(session, api_id)
    if row.name == IDP_API_NAME:
        raise Conflict("the provider's own API cannot be deleted", code="admin.api_protected")
    await session.execute(delete(Api).where(Api.id == row.id))
    return row


# --- Scopes -------------------------------------------------------------------------------


async def list_scopes(
    session: AsyncSession, api_id: uuid.UUID, *, limit: int, cursor: str | None
) -> ScopePage:
    await get_api(session, api_id)
    rows: list[Scope]
    rows, next_cursor = await keyset_page(
        session,
        select(Scope).where(Scope.api_id == api_id),
        order_by=[Scope.value.expression],
        key_of=lambda r: (r.value,),
        limit=limit,
        cursor=cursor,
    )
    return ScopePage(items=[scope_read(r) for r in rows], next_cursor=next_cursor)


async def get_scope(session: AsyncSession, scope_id: uuid.UUID) -> Scope:
    row = await session.get(Scope, scope_id)
    if row is None:
        raise NotFound("no scope with this id", code="admin.scope_not_found")
    return row


async def create_scope(
    session: AsyncSession, api_id: uuid.UUID, *, value: str, description: str
) -> Scope:
    api = await get_api(session, api_id)
    if value.split(":", 1)[0] != api.name:
        raise InvalidArgument(
            "value must begin with the API's name",
            errors=[FieldError("value", f"must be shaped {api.name}:<resource>:<action>")],
        )
    if await session.scalar(select(Scope.id).where(Scope.value == value)) is not None:
        raise _taken("scope", "value")
    row = Scope(api_id=api.id, value=value, description=description)
    session.add(row)
    await _flush(session, "scope", ("value",))
    return row


def _editable(row: Scope) -> None:
    if row.api_id is None:
        raise Conflict("standard OpenID Connect scopes are fixed", code="admin.scope_protected")


async def update_scope(session: AsyncSession, scope_id: uuid.UUID, *, description: str) -> Scope:
    row = await get_scope(session, scope_id)
    _editable(row)
    row.description = description
    await session.flush()
    return row


async def delete_scope(session: AsyncSession, scope_id: uuid.UUID) -> Scope:
    """Delete the scope; the database deletes every grant of it (roles, users, clients)."""
    row = await get_scope(session, scope_id)
    _editable(row)
    if row.value in PROVIDER_SCOPES:
        raise Conflict(
            "the provider's own permissions cannot be deleted", code="admin.scope_protected"
        )
    await session.execute(delete(Scope).where(Scope.id == row.id))
    return row
