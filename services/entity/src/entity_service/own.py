"""What the self-service routes share: their decorator arguments (operation, the
description opening with what the route needs, its guards), the audit row of a change to
the caller's own account (target: the person), removing one of the caller's credentials
(which ends their other sessions), and reading an uploaded image against the size limit."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final

from litestar import Request, Response
from sqlalchemy.ext.asyncio import AsyncSession

from entity_service.person import person_id
from idp_common.avatars.upload import Upload, read_upload
from idp_common.operations.credential_notice import Credential, notice_of, notice_task
from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_READ, SCOPE_IDP_ACCOUNT_WRITE
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.credential_changes import end_what_came_before
from idp_common.web.guard import current_caller, requires
from idp_common.web.recent_auth import requires_recent_sign_in

AnyRequest = Request[Any, Any, Any]
READ: Final = SCOPE_IDP_ACCOUNT_READ
WRITE: Final = SCOPE_IDP_ACCOUNT_WRITE
#: The logout reason of the sessions a removed credential ends.
CREDENTIAL_REMOVED: Final = "credential_removed"
STEP_UP: Final = (
    "and a sign-in within the last 300 seconds (else 403 with `WWW-Authenticate: Bearer "
    'error="insufficient_user_authentication", max_age=300`).'
)


def operation(
    operation_id: str, summary: str, permission: str, note: str = "", *, step_up: bool = False
) -> dict[str, Any]:
    """Route-decorator arguments: the operation, a description that opens with what the
    route needs, and its guards (``step_up``: a recent sign-in too, RFC 9470:
    :mod:`idp_common.web.recent_auth`)."""
    needs = f"Needs `{permission}` {STEP_UP}" if step_up else f"Needs `{permission}`."
    guards = requires_recent_sign_in(permission) if step_up else requires(permission)
    return {
        "operation_id": operation_id,
        "summary": summary,
        "description": f"{needs} {note}".strip(),
        **guards,
    }


def audit_own(
    request: AnyRequest,
    session: AsyncSession,
    person: uuid.UUID,
    action: str,
    *,
    status_code: int = 200,
    **detail: Any,
) -> None:
    """Record ``action`` on the caller's own account in this transaction."""
    audit(
        request,
        session,
        action=action,
        target_type="user",
        target=str(person),
        status_code=status_code,
        detail=detail,
    )


async def credential_removed(request: AnyRequest, session: AsyncSession, person: uuid.UUID) -> int:
    """The caller removed one of their credentials (in ``session``'s transaction): every
    other session of theirs ends with the logout fan-out, and no sign-in from before counts
    for a sensitive change any more (:mod:`idp_common.usecases.credential_change`). The
    session the caller did it from stays. Answers how many sessions ended."""
    return await end_what_came_before(
        request, session, person, reason=CREDENTIAL_REMOVED, keep_own_session=True
    )


async def remove_own(
    request: AnyRequest,
    remove: Callable[[AsyncSession, uuid.UUID], Awaitable[bool]],
    credentials: tuple[Credential, ...],
    action: str,
    had: str,
) -> Response[None]:
    """Remove one credential of the caller (their row locked) and audit whether there was
    one, as ``detail[had]``, with the other sessions it ended (:func:`credential_removed`);
    204 either way, and when there was one the person is told after the answer (one
    notice for each of ``credentials``: an authenticator goes with its recovery codes)."""
    resources = resources_of(request)
    async with resources.sessions.begin() as session:
        person = await person_id(session, current_caller(request).subject, lock=True)
        existed = await remove(session, person)
        ended = await credential_removed(request, session, person) if existed else 0
        detail = {had: existed, "sessionsEnded": ended}
        audit_own(request, session, person, action, status_code=204, **detail)
    if not existed:
        return Response(None, status_code=204)
    notices = [notice_of(request, person, credential, "removed") for credential in credentials]
    notice = notice_task(resources, *notices)
    return Response(None, status_code=204, background=notice)


async def read_image(request: AnyRequest) -> Upload:
    """The uploaded image (the body, or the ``file`` field of a form) within
    ``SVC_AVATAR_MAX_BYTES`` (413 past it)."""
    content_type, options = request.content_type
    return await read_upload(
        request.stream(),
        content_type,
        options,
        declared_length=request.content_length,
        limit=resources_of(request).settings.avatar_max_bytes,
    )
