"""A request that changed a person's credentials ends what came before it
(:mod:`idp_common.usecases.credential_change`), from the request's point of view: the
deployment's session store and NATS prefix, and the caller's own session when it stays."""

from __future__ import annotations

import uuid
from typing import Any

from litestar.connection import ASGIConnection
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.state.session_standing import decode_session
from idp_common.usecases.credential_change import credentials_changed
from idp_common.web.caller import resources_of
from idp_common.web.guard import current_caller

__all__ = ["end_what_came_before"]


async def end_what_came_before(
    connection: ASGIConnection[Any, Any, Any, Any],
    session: AsyncSession,
    person: uuid.UUID,
    *,
    reason: str,
    keep_own_session: bool = False,
) -> int:
    """Mark ``person``'s credentials changed and end their sessions (``reason``: the
    logout reason), in ``session``'s transaction; with ``keep_own_session``, the session
    the caller's token stands on stays. Answers how many sessions ended."""
    resources = resources_of(connection)
    kept = None
    if keep_own_session:
        own = current_caller(connection).session
        kept = decode_session(own).sid if own is not None else None
    ended, _ = await credentials_changed(
        session,
        resources.browser_sessions,
        person,
        reason=reason,
        nats_prefix=resources.settings.nats_prefix,
        keep_sid=kept,
    )
    return ended
