"""Telling every worker that clients changed: after the commit of a write to a client, or to
the scopes clients hold, the ``clients`` change stamp (:mod:`idp_common.state.change_stamp`)
is bumped, so the token service drops its cached clients (a rotated secret or a removed
redirect URI stops working at once) and every bearer guard its copies of clients' scopes (a
token holding a scope its client lost stops: :mod:`idp_common.web.token_standing`)."""

from __future__ import annotations

import logging
from typing import Any

from litestar.connection import ASGIConnection
from redis.exceptions import RedisError

from idp_common.state.change_stamp import CLIENTS, bump
from idp_common.web.caller import resources_of

log = logging.getLogger("idp.admin.clients")


async def announce_client_change(connection: ASGIConnection[Any, Any, Any, Any]) -> None:
    """Bump the stamp. If Redis cannot be told, the change still stands and reaches the
    workers when their copies expire (seconds: ``token_service.caches``,
    ``idp_common.web.token_standing``)."""
    resources = resources_of(connection)
    try:
        await bump(resources.redis, resources.settings.redis_prefix, CLIENTS)
    except (RedisError, OSError) as exc:
        log.error("could not announce a client change (%s)", type(exc).__name__)
