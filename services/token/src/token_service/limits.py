"""Per-address limits of the token service.

- ``enforce_token_limit``: the token endpoint (spec part 8 ``TOKEN_PER_IP``).
  ``SVC_TOKEN_PER_IP`` requests (default 120) per 60-second window per caller address
  (spec part 5 "Caller address"). Past it: 429, ``Retry-After``, and the RFC 6749 body
  ``{"error": "temporarily_unavailable"}`` (docs/decisions.md). When Redis cannot be
  reached the limit is not applied (fail open, logged): the endpoint keeps working on
  Postgres alone, and the proxy's coarse limit still stands in front.
- ``challenge_retry_after``: sign-in challenges stored by ``/oauth2/authorize`` (issue
  #19, attack 4), ``SVC_CHALLENGE_PER_IP`` per 60-second window per caller address,
  counted only when a challenge is about to be stored. Redis errors propagate: the
  challenge lives in Redis, so there is nothing to fail open to.
"""

from __future__ import annotations

import logging
from typing import Final

from idp_common.protocol.constants import TOKEN_PER_IP_WINDOW_SECONDS
from idp_common.protocol.rfc6749_errors import TooManyRequests
from idp_common.web.resources import Resources
from token_service.context import GrantDeps

log = logging.getLogger("idp.limits")
TOKEN_BUCKET: Final = "token"  # noqa: S105 - a rate-limit bucket name
CHALLENGE_BUCKET: Final = "challenge"
CHALLENGE_WINDOW_SECONDS: Final = 60


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


async def challenge_retry_after(resources: Resources, ip: str) -> int | None:
    """Count one new challenge for ``ip``; None when allowed, else seconds to wait."""
    result = await resources.limiter.hit(
        CHALLENGE_BUCKET,
        ip,
        limit=resources.settings.challenge_per_ip,
        window_seconds=CHALLENGE_WINDOW_SECONDS,
    )
    return None if result.allowed else result.retry_after
