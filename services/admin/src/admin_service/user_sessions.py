"""Ending a person's sessions and telling the bearer guards, as the ``/admin/users``
routes that disable, delete, reset or sign a person out do; the audit row a use case
completes."""

from __future__ import annotations

import logging
import uuid
from typing import Any, Final

from litestar import Request
from redis.exceptions import RedisError
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.state.change_stamp import bump
from idp_common.storage.repos.audit import AuditEntry
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.credential_changes import end_what_came_before
from idp_common.web.guard import USERS_STAMP, current_caller

log = logging.getLogger("idp.admin.users")
#: The logout reason of the sessions an administrator ends by removing a credential.
CREDENTIAL_REMOVED: Final = "credential_removed"
AnyRequest = Request[Any, Any, Any]


async def end_sessions_of(
    request: AnyRequest, session: AsyncSession, user_id: uuid.UUID, reason: str
) -> int:
    """End every browser session of the person with the logout fan-out and mark their
    credentials changed, so that no token or sign-in from before counts any more
    (:mod:`idp_common.usecases.credential_change`); how many sessions ended."""
    return await end_what_came_before(request, session, user_id, reason=reason)


async def end_sessions_after_removal(
    request: AnyRequest, session: AsyncSession, user_id: uuid.UUID
) -> int:
    """A credential of the person was removed: as :func:`end_sessions_of` (reason
    ``credential_removed``), except that an administrator removing one of their own keeps
    the session they did it from, as the self-service API does."""
    own = current_caller(request).subject == str(user_id)
    return await end_what_came_before(
        request, session, user_id, reason=CREDENTIAL_REMOVED, keep_own_session=own
    )


async def tell_guards(request: AnyRequest) -> None:
    """After the commit: every bearer guard forgets which people it knew as active
    (``idp_common.web.guard``), so the person's access tokens stop working at the next
    request. If Redis cannot be told, the guards find out within five seconds."""
    resources = resources_of(request)
    try:
        await bump(resources.redis, resources.settings.redis_prefix, USERS_STAMP)
    except (RedisError, OSError) as exc:
        log.error("could not announce a disabled or deleted person (%s)", type(exc).__name__)


def audit_entry(request: AnyRequest, action: str, status_code: int) -> AuditEntry:
    """The audit row of the caller's write, for a use case that completes and writes it."""
    return AuditEntry(
        action=action,
        status_code=status_code,
        ip=caller_ip(request),
        actor=current_caller(request).subject,
    )
