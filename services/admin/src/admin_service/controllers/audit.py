"""``GET /admin/audit``: the audit log, newest first, filtered and paged."""

from __future__ import annotations

from datetime import datetime

from litestar import get

from admin_service.routes import Limit, Req, operation, reading
from idp_common.protocol.constants import SCOPE_IDP_AUDIT_READ
from idp_common.storage.repos.audit import AuditFilter, AuditPage, list_audit
from idp_common.storage.repos.paging import DEFAULT_LIMIT


@get(
    "/admin/audit",
    tags=["audit"],
    **operation("listAuditEvents", "Read the audit log (newest first)", SCOPE_IDP_AUDIT_READ),
)
async def list_events(
    request: Req,
    action: str | None = None,
    actor: str | None = None,
    target: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: Limit = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> AuditPage:
    filters = AuditFilter(action=action, actor=actor, target=target, since=since, until=until)
    async with reading(request) as session:
        return await list_audit(session, filters, limit=limit, cursor=cursor)


ROUTES = [list_events]
