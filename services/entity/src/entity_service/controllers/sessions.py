"""``/entity/sessions``: the caller's browser sessions, and ending one (contract §4
"Entity (self-service)", part 3 "session active", part 6 back-channel logout).

Reads need ``idp:sessions:read``, ending one ``idp:sessions:write`` (audited
``session.end``). The rules live in :mod:`entity_service.repos.sessions`.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from litestar import Controller, Request, delete, get
from litestar.params import Parameter

from entity_service.openapi_links import linked_list
from entity_service.person import person_key
from entity_service.repos import sessions as store
from idp_common.protocol.constants import SCOPE_IDP_SESSIONS_READ, SCOPE_IDP_SESSIONS_WRITE
from idp_common.storage.repos.paging import DEFAULT_LIMIT, MAX_LIMIT
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import current_caller, requires

Limit = Annotated[int, Parameter(ge=1, le=MAX_LIMIT)]
SessionId = Annotated[
    str, Parameter(description="the session's public id: the `sid` its ID tokens carry")
]
TARGET: Final = "session"


class SessionsController(Controller):
    path = "/entity/sessions"
    tags = ["sessions"]

    @get(
        operation_id="listOwnSessions",
        summary="List your browser sessions (newest first), each with the applications reached",
        description=(
            f"Needs `{SCOPE_IDP_SESSIONS_READ}`. `id` is the session's `sid` (as in its ID "
            "tokens); `current` marks the session the calling token was issued in."
        ),
        operation_class=linked_list("endOwnSession", "session_id", "id"),
        **requires(SCOPE_IDP_SESSIONS_READ),
    )
    async def list_sessions(
        self,
        request: Request[Any, Any, Any],
        limit: Limit = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> store.SessionPage:
        caller = current_caller(request)
        user_id = person_key(caller.subject)
        resources = resources_of(request)
        records = await resources.browser_sessions.list_sessions(str(user_id))
        current = caller.claims.get("sid")
        async with resources.sessions() as session:
            return await store.session_page(
                session,
                records,
                current_sid=current if isinstance(current, str) else None,
                limit=limit,
                cursor=cursor,
            )

    @delete(
        "/{session_id:str}",
        operation_id="endOwnSession",
        summary="End one of your sessions (same fan-out as logout)",
        description=(
            f"Needs `{SCOPE_IDP_SESSIONS_WRITE}`. The session's refresh tokens are revoked and "
            "each application reached in it receives a back-channel logout. A session that "
            "is not yours, or does not exist, is 404 alike."
        ),
        **requires(SCOPE_IDP_SESSIONS_WRITE),
    )
    async def end_session(self, request: Request[Any, Any, Any], session_id: SessionId) -> None:
        user_id = person_key(current_caller(request).subject)
        resources = resources_of(request)
        async with resources.sessions.begin() as session:
            ended = await store.end_own_session(
                session,
                resources.browser_sessions,
                user_id,
                session_id,
                nats_prefix=resources.settings.nats_prefix,
            )
            audit(
                request,
                session,
                action="session.end",
                target_type=TARGET,
                target=ended.sid,
                status_code=204,
                detail={"clients": list(ended.clients)},
            )


ROUTES = [SessionsController]
