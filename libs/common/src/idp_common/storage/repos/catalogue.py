"""The core the named catalogue entries share: roles and groups (and the link sets of
clients, roles and groups).

An entry has a unique ``name``, a ``description`` and timestamps. Every function runs in
the caller's transaction. Writes lock the entry's row first (``SELECT ... FOR UPDATE``),
so two concurrent writes to one entry run one after the other and a link-set replace
never meets another's half-written rows. A taken name is a ``Conflict`` naming ``name``,
checked first and, for two racing writers, mapped from the unique index's violation. A
missing entry (or an id that is not a UUID) is ``NotFound``. Deleting an entry deletes
its link rows by foreign-key cascade, in the same statement.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from idp_common.errors import Conflict, FieldError, NotFound
from idp_common.storage.db.models import Group, Role
from idp_common.storage.repos.paging import Page, keyset_page

Entry = TypeVar("Entry", Role, Group)
Read = TypeVar("Read")
#: A column of a link table (``role_scopes.role_id``...).
Link = InstrumentedAttribute[uuid.UUID]


def uuid_or_none(raw: str) -> uuid.UUID | None:
    """The UUID in a path segment, or None: a malformed id names nothing (a 404)."""
    try:
        return uuid.UUID(raw)
    except ValueError:
        return None


def not_found(kind: str) -> NotFound:
    return NotFound(f"no {kind} with this id", code=f"admin.{kind}_not_found")


def name_taken(kind: str) -> Conflict:
    return Conflict(
        f"name: a {kind} with this name already exists",
        code=f"admin.{kind}_name_taken",
        errors=[FieldError("name", f"a {kind} with this name already exists")],
    )


async def now(session: AsyncSession) -> datetime:
    """The transaction's time, as ``updated_at`` columns take it."""
    value: datetime = (await session.execute(select(func.now()))).scalar_one()
    return value


async def replace_links(
    session: AsyncSession, owner: Link, target: Link, owner_id: uuid.UUID, ids: Sequence[uuid.UUID]
) -> None:
    """Make ``ids`` (no repeats) the whole link set of ``owner_id``: one delete and one
    insert on the link table of the columns ``owner`` and ``target``."""
    await session.execute(delete(owner.class_).where(owner == owner_id))
    await add_links(session, owner, target, owner_id, ids)


async def add_links(
    session: AsyncSession, owner: Link, target: Link, owner_id: uuid.UUID, ids: Sequence[uuid.UUID]
) -> int:
    """Add the links of ``owner_id`` to ``ids`` it lacks (``ON CONFLICT DO NOTHING``, so
    racing adders add each link once); returns how many were added."""
    if not ids:
        return 0
    rows = [{owner.key: owner_id, target.key: t} for t in ids]
    added = await session.execute(
        insert(owner.class_).values(rows).on_conflict_do_nothing().returning(target)
    )
    return len(added.all())


class NamedEntries(Generic[Entry, Read]):
    """List, read, create, rename and delete the entries of ``model``.

    ``details`` reads a batch of rows as the API shows them; ``protected`` names entries
    the operator tool finds by name, which keep it and are never deleted.
    """

    def __init__(
        self,
        model: type[Entry],
        kind: str,
        details: Callable[[AsyncSession, Sequence[Entry]], Awaitable[list[Read]]],
        *,
        protected: frozenset[str] = frozenset(),
    ) -> None:
        self.model: type[Entry] = model
        self.kind = kind
        self.details: Callable[[AsyncSession, Sequence[Entry]], Awaitable[list[Read]]] = details
        self.protected = protected

    async def row(self, session: AsyncSession, raw_id: str, *, lock: bool) -> Entry:
        key = uuid_or_none(raw_id)
        found: Entry | None = None
        if key is not None:
            found = await session.get(self.model, key, with_for_update=lock)
        if found is None:
            raise not_found(self.kind)
        return found

    async def read(self, session: AsyncSession, row: Entry) -> Read:
        (read,) = await self.details(session, [row])
        return read

    async def page(self, session: AsyncSession, *, limit: int, cursor: str | None) -> Page[Read]:
        """Entries in name order."""
        rows: list[Entry]
        rows, next_cursor = await keyset_page(
            session,
            select(self.model),
            order_by=[self.model.name.expression, self.model.id.expression],
            key_of=lambda r: (r.name, r.id),
            limit=limit,
            cursor=cursor,
        )
        return Page(items=await self.details(session, rows), next_cursor=next_cursor)

    async def get(self, session: AsyncSession, raw_id: str) -> Read:
        return await self.read(session, await self.row(session, raw_id, lock=False))

    async def _check_name_free(self, session: AsyncSession, name: str) -> None:
        if await session.scalar(select(self.model.id).where(self.model.name == name)):
            raise name_taken(self.kind)

    async def _flush_named(self, session: AsyncSession) -> None:
        try:
            await session.flush()
        except IntegrityError as exc:  # a concurrent writer took the name first
            raise name_taken(self.kind) from exc

    async def create(self, session: AsyncSession, *, name: str, description: str) -> Read:
        await self._check_name_free(session, name)
        row = self.model(name=name, description=description)
        session.add(row)
        await self._flush_named(session)
        return await self.read(session, row)

    async def update(
        self, session: AsyncSession, raw_id: str, *, name: str | None, description: str | None
    ) -> tuple[Read, list[str]]:
        """Apply the given members; return the entry and the names of those that changed."""
        row = await self.row(session, raw_id, lock=True)
        changed: list[str] = []
        if name is not None and name != row.name:
            if row.name in self.protected:
                raise Conflict(
                    f"name: the seeded {row.name} {self.kind} cannot be renamed",
                    code=f"admin.{self.kind}_protected",
                )
            await self._check_name_free(session, name)
            row.name = name
            changed.append("name")
        if description is not None and description != row.description:
            row.description = description
            changed.append("description")
        if changed:
            await self._flush_named(session)
        return await self.read(session, row), changed

    async def delete(self, session: AsyncSession, raw_id: str) -> uuid.UUID:
        """Delete the entry; its link rows go by cascade."""
        row = await self.row(session, raw_id, lock=True)
        if row.name in self.protected:
            raise Conflict(
                f"the seeded {row.name} {self.kind} cannot be deleted",
                code=f"admin.{self.kind}_protected",
            )
        await session.execute(delete(self.model).where(self.model.id == row.id))
        return row.id

    async def touch(self, session: AsyncSession, row: Entry) -> None:
        """Mark the entry changed after a write to its link set."""
        row.updated_at = await now(session)
        await session.flush()


def rows_by_owner(pairs: Any, owners: Sequence[uuid.UUID]) -> dict[uuid.UUID, list[Any]]:
    """``{owner: [value, ...]}`` for each of ``owners`` (empty lists included) from
    ``(owner, value)`` rows, in the rows' order."""
    found: dict[uuid.UUID, list[Any]] = {owner: [] for owner in owners}
    for owner, value in pairs:
        found[owner].append(value)
    return found
