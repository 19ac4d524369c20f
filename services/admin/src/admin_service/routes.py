"""What every administration route shares: its decorator arguments (name, summary, the
one permission it needs), the paging parameter, and the audited write transaction."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import msgspec
from litestar import Request
from litestar.params import Parameter
from sqlalchemy.ext.asyncio import AsyncSession

from admin_service.authority import requires_sensitive
from idp_common.storage.repos.paging import MAX_LIMIT
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import requires

Req = Request[Any, Any, Any]
Limit = Annotated[int, Parameter(ge=1, le=MAX_LIMIT)]
#: Most entries a list in a request body may have. A list is looked up in one
#: query, one bind parameter per entry, and PostgreSQL takes at most 32,767: 40,000 scope
#: names were a 500. No real request comes near a thousand.
MAX_LIST_ENTRIES = 1000
Names = Annotated[list[str], msgspec.Meta(max_length=MAX_LIST_ENTRIES)]


def operation(
    operation_id: str, summary: str, permission: str, note: str = "", *, sensitive: bool = False
) -> dict[str, Any]:
    """Route-decorator arguments: the operation, a description that opens with the one
    permission it needs, and its guards (``sensitive``: a recent sign-in too)."""
    guards = requires_sensitive(permission) if sensitive else requires(permission)
    description = f"Needs `{permission}`. {note}".strip()
    return {"operation_id": operation_id, "summary": summary, "description": description, **guards}


class Write:
    """The open transaction of one administration write, which audits it."""

    def __init__(self, request: Req, session: AsyncSession) -> None:
        self.request, self.session = request, session

    def audit(self, action: str, target: object, *, status_code: int = 200, **detail: Any) -> None:
        """Record ``action`` (``<target type>.<verb>``) on ``target`` in this transaction."""
        audit(
            self.request,
            self.session,
            action=action,
            target_type=action.split(".", 1)[0],
            target=str(target),
            status_code=status_code,
            detail=detail,
        )


@asynccontextmanager
async def writing(request: Req) -> AsyncIterator[Write]:
    """One transaction, committed when the block ends without an error."""
    async with resources_of(request).sessions.begin() as session:
        yield Write(request, session)


@asynccontextmanager
async def reading(request: Req) -> AsyncIterator[AsyncSession]:
    async with resources_of(request).sessions() as session:
        yield session
