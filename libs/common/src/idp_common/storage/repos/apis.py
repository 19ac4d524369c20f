"""Resource APIs and their scopes: the one writer of ``apis`` and ``scopes`` (contract §2
"Resource API and scope").

Every function runs in the caller's transaction. Guarantees, whoever calls:
- ``name`` and ``audience`` of an API and ``value`` of a scope are unique: a taken one is
  a ``Conflict`` naming the field, checked first and, for two racing writers, mapped from
  the unique index's violation.
- A scope's ``value`` is ``<api name>:<resource>:<action>``, so an API that has scopes keeps
  its name (renaming would orphan the prefix of every value already issued in tokens).
- The provider's own API (``idp``) is never renamed, re-pointed or deleted, its access
  tokens stay RS256, and the catalogue's ``idp:*`` scopes are never deleted:
  the admin permissions hang on them.
- ``access_token_signing_alg`` is the algorithm of the API's access tokens (default
  RS256); the caller checks that the provider holds a key for it.
- Standard OIDC scopes (``api_id`` NULL) are read-only here.
- Deleting an API deletes its scopes and every grant of them (FK ``ON DELETE CASCADE``),
  in the same statement.

:func:`ensure_api` is the operator tool's idempotent form (``ON CONFLICT DO NOTHING``).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import TypeVar

import msgspec
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, FieldError, InvalidArgument
from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    IDP_API_NAME,
    SELF_SERVICE_SCOPES,
    SIGNING_ALGORITHM,
)
from idp_common.storage.db.models import Api, Scope
from idp_common.storage.repos.catalogue import not_found, uuid_or_none
from idp_common.storage.repos.paging import Page, keyset_items

PROVIDER_SCOPES = frozenset((*ADMIN_SCOPES, *SELF_SERVICE_SCOPES))
Row = TypeVar("Row", Api, Scope)


class ApiRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    name: str
    audience: str
    access_token_signing_alg: str
    created_at: datetime
    updated_at: datetime


class ScopeRead(msgspec.Struct, frozen=True, rename="camel"):
    id: uuid.UUID
    api_id: uuid.UUID | None
    value: str
    description: str
    created_at: datetime


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


async def _row(session: AsyncSession, model: type[Row], raw_id: str) -> Row:
    """The row of ``model`` with this path id; 404 for a missing one or a malformed id."""
    key = uuid_or_none(raw_id)
    row = None if key is None else await session.get(model, key)
    if row is None:
        raise not_found(model.__tablename__.removesuffix("s"))
    return row


def _api(row: Api) -> ApiRead:
    return msgspec.convert(row, ApiRead, from_attributes=True)


def _scope(row: Scope) -> ScopeRead:
    return msgspec.convert(row, ScopeRead, from_attributes=True)


# --- APIs ---------------------------------------------------------------------------------


async def list_apis(session: AsyncSession, *, limit: int, cursor: str | None) -> Page[ApiRead]:
    """APIs in name order."""
    return await keyset_items(
        session, select(Api), order_by=[Api.name, Api.id], read=_api, limit=limit, cursor=cursor
    )


async def get_api(session: AsyncSession, api_id: str) -> ApiRead:
    return _api(await _row(session, Api, api_id))


async def _check_unique_api(
    session: AsyncSession, fields: Mapping[str, str], api: Api | None
) -> None:
    for field, value in fields.items():
        query = select(Api.id).where(getattr(Api, field) == value)
        if api is not None:
            query = query.where(Api.id != api.id)
        if await session.scalar(query) is not None:
            raise _taken("api", field)


async def create_api(
    session: AsyncSession,
    *,
    name: str,
    audience: str,
    access_token_signing_alg: str = SIGNING_ALGORITHM,
) -> ApiRead:
    await _check_unique_api(session, {"name": name, "audience": audience}, None)
    row = Api(name=name, audience=audience, access_token_signing_alg=access_token_signing_alg)
    session.add(row)
    await _flush(session, "api", ("name", "audience"))
    return _api(row)


async def update_api(
    session: AsyncSession,
    api_id: str,
    *,
    name: str | None,
    audience: str | None,
    access_token_signing_alg: str | None = None,
) -> tuple[ApiRead, list[str]]:
    """Apply the given fields; answer the API and the names of the fields that changed."""
    row = await _row(session, Api, api_id)
    given = {
        "name": name,
        "audience": audience,
        "access_token_signing_alg": access_token_signing_alg,
    }
    changes = {f: v for f, v in given.items() if v is not None and v != getattr(row, f)}
    if not changes:
        return _api(row), []
    if row.name == IDP_API_NAME:
        raise Conflict(
            "the provider's own API keeps its name, audience and RS256 signing",
            code="admin.api_protected",
        )
    if "name" in changes and await _scope_count(session, row.id):
        raise Conflict(
            "name cannot change while the API has scopes (their values begin with it)",
            code="admin.api_name_in_use",
            errors=[FieldError("name", "cannot change while the API has scopes")],
        )
    unique = {f: v for f, v in changes.items() if f in ("name", "audience")}
    await _check_unique_api(session, unique, row)
    for field, value in changes.items():
        setattr(row, field, value)
    await _flush(session, "api", ("name", "audience"))
    return _api(row), list(changes)


async def _scope_count(session: AsyncSession, api_id: uuid.UUID) -> int:
    query = select(func.count()).select_from(Scope).where(Scope.api_id == api_id)
    return int(await session.scalar(query) or 0)


async def delete_api(session: AsyncSession, api_id: str) -> ApiRead:
    """Delete the API; the database deletes its scopes and their grants with it."""
    row = await _row(session, Api, api_id)
    if row.name == IDP_API_NAME:
        raise Conflict("the provider's own API cannot be deleted", code="admin.api_protected")
    read = _api(row)
    await session.execute(delete(Api).where(Api.id == row.id))
    return read


async def ensure_api(
    session: AsyncSession, *, name: str, audience: str, scopes: Mapping[str, str]
) -> int:
    """Insert the API unless its name exists (its audience is rewritten when it differs),
    and whichever of ``scopes`` (value → description) are missing; returns how many
    scopes were added."""
    await session.execute(
        insert(Api)
        .values(name=name, audience=audience)
        .on_conflict_do_nothing(index_elements=[Api.name])
    )
    await session.execute(
        update(Api)
        .where(Api.name == name, Api.audience != audience)
        .values(audience=audience, updated_at=func.now())
    )
    api_id = (await session.execute(select(Api.id).where(Api.name == name))).scalar_one()
    if not scopes:
        return 0
    added = await session.execute(
        insert(Scope)
        .values([{"api_id": api_id, "value": v, "description": d} for v, d in scopes.items()])
        .on_conflict_do_nothing(index_elements=[Scope.value])
        .returning(Scope.id)
    )
    return len(added.all())


class ApiTarget(msgspec.Struct, frozen=True):
    """An API found by its audience (RFC 8707 resource indicators, RFC 8693 exchange
    targets): its tokens' algorithm and its scope values."""

    audience: str
    access_token_signing_alg: str
    scopes: frozenset[str]


async def apis_by_audience(session: AsyncSession, audiences: Collection[str]) -> list[ApiTarget]:
    """The APIs whose ``audience`` is one of ``audiences`` (one query), with their scope
    values; an audience that names no API is left out. A value PostgreSQL text cannot
    hold (NUL) names none."""
    wanted = sorted({value for value in audiences if "\x00" not in value})
    if not wanted:
        return []
    rows = await session.execute(
        select(Api.audience, Api.access_token_signing_alg, Scope.value)
        .outerjoin(Scope, Scope.api_id == Api.id)
        .where(Api.audience.in_(wanted))
    )
    found: dict[str, tuple[str, set[str]]] = {}
    for audience, alg, value in rows:
        entry = found.setdefault(audience, (alg, set()))
        if value is not None:
            entry[1].add(value)
    return [ApiTarget(aud, alg, frozenset(values)) for aud, (alg, values) in sorted(found.items())]


# --- Scopes -------------------------------------------------------------------------------


async def list_scopes(
    session: AsyncSession, api_id: str, *, limit: int, cursor: str | None
) -> Page[ScopeRead]:
    """The API's scopes in value order."""
    api = await _row(session, Api, api_id)
    query = select(Scope).where(Scope.api_id == api.id)
    return await keyset_items(
        session, query, order_by=[Scope.value], read=_scope, limit=limit, cursor=cursor
    )


async def get_scope(session: AsyncSession, scope_id: str) -> ScopeRead:
    return _scope(await _row(session, Scope, scope_id))


async def create_scope(
    session: AsyncSession, api_id: str, *, value: str, description: str
) -> ScopeRead:
    api = await _row(session, Api, api_id)
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
    return _scope(row)


async def _editable(session: AsyncSession, scope_id: str) -> Scope:
    row = await _row(session, Scope, scope_id)
    if row.api_id is None:
        raise Conflict("standard OpenID Connect scopes are fixed", code="admin.scope_protected")
    return row


async def update_scope(session: AsyncSession, scope_id: str, *, description: str) -> ScopeRead:
    row = await _editable(session, scope_id)
    row.description = description
    await session.flush()
    return _scope(row)


async def delete_scope(session: AsyncSession, scope_id: str) -> ScopeRead:
    """Delete the scope; the database deletes every grant of it (roles, users, clients)."""
    row = await _editable(session, scope_id)
    if row.value in PROVIDER_SCOPES:
        raise Conflict(
            "the provider's own permissions cannot be deleted", code="admin.scope_protected"
        )
    read = _scope(row)
    await session.execute(delete(Scope).where(Scope.id == row.id))
    return read
