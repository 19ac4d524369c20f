"""The per-address limit on the token endpoint (spec part 8 ``TOKEN_PER_IP``).

``SVC_TOKEN_PER_IP`` requests (default 120) per 60-second window per caller address
(spec part 5 "Caller address"). Past it: 429, ``Retry-After``, and the RFC 6749 body
``{"error": "temporarily_unavailable"}`` (docs/decisions.md). When Redis cannot be
reached the limit is not applied (fail open, logged): the endpoint keeps working on
Postgres alone, and the proxy's coarse limit still stands in front.
"""

from __future__ import annotations

import logging
from typing import Final

from idp_common.protocol.constants import TOKEN_PER_IP_WINDOW_SECONDS
from idp_common.protocol.rfc6749_errors import TooManyRequests
from token_service.context import GrantDeps

log = logging.getLogger("idp.limits")
TOKEN_BUCKET: Final = "token"  # noqa: S105 - a rate-limit bucket name


async def enforce_token_limit(deps: GrantDeps) -> None:
    resources = deps.ctx.resources
    try:
        result = await resources.limiter.hit(
            TOKEN_BUCKET,
            deps.ip,
            limit=resources.settings.token_per_ip,
            window_seconds=TOKEN_PER_IP_WINDOW_SECONDS,
        )
    except Exception as exc:  # Redis down: fail open
        log.warning("token rate limit not applied (%s)", type(exc).__name__)
        return
    if not result.allowed:
        raise TooManyRequests(result.retry_after)
