"""The routes roles and groups share: list, create, read, rename or describe, delete.

Both are named entries (:mod:`idp_common.storage.repos.catalogue`) under
``/admin/<kind>s/{<kind>_id}``; each write is audited as ``<kind>.create|update|delete``.
A kind may check a delete first (``before_delete``: groups check what their members lose).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Protocol, TypeVar

import msgspec
from litestar import Router, delete, get, patch, post
from litestar.handlers import HTTPRouteHandler
from litestar.params import JSONBody

from admin_service.routes import Limit, Req, Write, operation, reading, writing
from idp_common.storage.repos.catalogue import NamedEntries
from idp_common.storage.repos.paging import DEFAULT_LIMIT, Page


class Identified(Protocol):
    @property
    def id(self) -> uuid.UUID: ...


Read = TypeVar("Read", bound=Identified)
Name = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=200,
        pattern=r"\S",
        description="Unique; not blank; surrounding spaces are dropped.",
    ),
]
Description = Annotated[str, msgspec.Meta(max_length=2000)]
#: Run in a delete's transaction before the entry goes, with the id as sent; raises to refuse.
BeforeDelete = Callable[[Write, str], Awaitable[None]]


class EntryCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: Name
    description: Description = ""


class EntryUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Members left out (or null) keep their value."""

    name: Name | None = None
    description: Description | None = None


def named_entry_router(
    entries: NamedEntries[Any, Read],
    read: type[Read],
    *,
    permissions: tuple[str, str],
    update_note: str,
    delete_note: str,
    more: list[HTTPRouteHandler],
    before_delete: BeforeDelete | None = None,
) -> Router:
    """The router of ``/admin/<kind>s``: the five shared routes, then ``more``.

    ``permissions`` is (read, write); the notes end the descriptions of update and delete;
    ``before_delete`` checks a delete before it happens.
    """
    kind, title = entries.kind, entries.kind.title()
    reads, writes = permissions
    one = f"/{{{kind}_id:str}}"

    async def list_entries(
        request: Req, limit: Limit = DEFAULT_LIMIT, cursor: str | None = None
    ) -> Page[Read]:
        async with reading(request) as session:
            return await entries.page(session, limit=limit, cursor=cursor)

    async def create_entry(request: Req, data: JSONBody[EntryCreate]) -> Read:
        async with writing(request) as write:
            name = data.name.strip()
            created = await entries.create(write.session, name=name, description=data.description)
            write.audit(f"{kind}.create", created.id, status_code=201)
        return created

    async def get_entry(request: Req) -> Read:
        async with reading(request) as session:
            return await entries.get(session, request.path_params[f"{kind}_id"])

    async def update_entry(request: Req, data: JSONBody[EntryUpdate]) -> Read:
        async with writing(request) as write:
            entry, changed = await entries.update(
                write.session,
                request.path_params[f"{kind}_id"],
                name=None if data.name is None else data.name.strip(),
                description=data.description,
            )
            write.audit(f"{kind}.update", entry.id, fields=changed)
        return entry

    async def delete_entry(request: Req) -> None:
        async with writing(request) as write:
            raw_id = request.path_params[f"{kind}_id"]
            if before_delete is not None:
                await before_delete(write, raw_id)
            deleted = await entries.delete(write.session, raw_id)
            write.audit(f"{kind}.delete", deleted, status_code=204)

    handlers = [
        get(**operation(f"list{title}s", f"List {kind}s (by name)", reads))(list_entries),
        post(**operation(f"create{title}", f"Create a {kind}", writes, "A taken name is 409."))(
            create_entry
        ),
        get(one, **operation(f"get{title}", f"Read a {kind}", reads))(get_entry),
        patch(
            one,
            **operation(f"update{title}", f"Rename or describe a {kind}", writes, update_note),
        )(update_entry),
        delete(one, **operation(f"delete{title}", f"Delete a {kind}", writes, delete_note))(
            delete_entry
        ),
    ]
    return Router(
        path=f"/admin/{kind}s",
        route_handlers=[*handlers, *more],
        tags=[f"{kind}s"],
        signature_namespace={"Read": read},
    )
