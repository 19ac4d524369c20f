"""``GET /admin/audit``: the audit log, newest first, filtered and paged."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.params import Parameter

from idp_common.protocol.constants import SCOPE_IDP_AUDIT_READ
from idp_common.storage.repos.audit import AuditFilter, AuditPage, list_audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import requires


class AuditController(Controller):
    path = "/admin/audit"
    tags = ["audit"]

    @get(
        operation_id="listAuditEvents",
        summary="Read the audit log (newest first)",
        description=f"Needs `{SCOPE_IDP_AUDIT_READ}`.",
        **requires(SCOPE_IDP_AUDIT_READ),
    )
    async def list_events(
        self,
        request: Request[Any, Any, Any],
        action: str | None = None,
        actor: str | None = None,
        target: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: Annotated[int, Parameter(ge=1, le=200)] = 50,
        cursor: str | None = None,
    ) -> AuditPage:
        filters = AuditFilter(action=action, actor=actor, target=target, since=since, until=until)
        async with resources_of(request).sessions() as session:
            return await list_audit(session, filters, limit=limit, cursor=cursor)


ROUTES = [AuditController]
