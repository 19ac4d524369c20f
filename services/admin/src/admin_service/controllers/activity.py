"""``GET /admin/activity``: the activity dashboard's figures (docs/activity-dashboard.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from litestar import get
from litestar.params import Parameter

from admin_service.routes import Req, operation
from idp_common.errors import FieldError, InvalidArgument
from idp_common.protocol.constants import SCOPE_IDP_AUDIT_READ
from idp_common.storage.repos.activity import (
    RANGES,
    Activity,
    activity_rows,
    assemble,
    hour_starts,
)
from idp_common.web.caller import resources_of


@get(
    "/admin/activity",
    tags=["audit"],
    **operation(
        "getActivity",
        "Sign-ins, throttled attempts, tokens, back-channel deliveries per hour",
        SCOPE_IDP_AUDIT_READ,
        "`range`: `24h` (default) or `7d`. Counted from the audit log; `activeSessions` now.",
    ),
)
async def get_activity(
    request: Req, range_name: Annotated[str, Parameter(query="range")] = "24h"
) -> Activity:
    hours = RANGES.get(range_name)
    if hours is None:
        message = "must be one of " + ", ".join(RANGES)
        raise InvalidArgument(f"range {message}", errors=[FieldError("range", message)])
    resources = resources_of(request)
    now = datetime.now(UTC)
    async with resources.sessions.begin() as session:  # commits the hours it rolled up
        rows = await activity_rows(session, now, hours)
    live = await resources.browser_sessions.count_live(now.timestamp())
    return assemble(range_name, hour_starts(now, hours), rows, active_sessions=live, now=now)


ROUTES = [get_activity]
