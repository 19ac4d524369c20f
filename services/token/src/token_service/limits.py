"""Per-address limits of the token service (the rows of
:mod:`idp_common.state.address_limits`).

- ``enforce_token_limit``: the token endpoint (contract §8 ``TOKEN_PER_IP``), and with
  a bucket of their own each, introspection and revocation (docs/security.md, attack 11: they
  authenticate a client too, so they would otherwise be an unlimited way to guess a
  client secret). ``SVC_TOKEN_PER_IP`` requests (default 120) a minute per caller
  address and endpoint (contract §5 "Caller address"), counted before the form is
  read. Past it: 429, ``Retry-After``, and the RFC 6749 body
  ``{"error": "temporarily_unavailable"}`` (docs/decisions.md). When Redis cannot be
  reached the limit is not applied (fail open, logged): the endpoints keep doing what
  needs no Redis (client credentials, refresh-token introspection) and answer 503 where
  they do need it, while the proxy's coarse limit still stands in front. Failing closed
  would turn a Redis outage into a full outage for no gain: the limit guards against
  volume, which the proxy still bounds.
- ``challenge_retry_after``: sign-in challenges stored by ``/oauth2/authorize`` (issue
  #19, attack 4), ``SVC_CHALLENGE_PER_IP`` a minute per caller address,
  counted only when a challenge is about to be stored. Redis errors propagate: the
  challenge lives in Redis, so there is nothing to fail open to.
"""

from __future__ import annotations

import logging

from idp_common.protocol.rfc6749_errors import TooManyRequests
from idp_common.state.address_limits import CHALLENGE, TOKEN, AddressLimit
from idp_common.web.resources import Resources
from token_service.context import GrantDeps

log = logging.getLogger("idp.limits")


async def enforce_token_limit(deps: GrantDeps, row: AddressLimit = TOKEN) -> None:
    """Count one request of ``deps.ip`` in ``row``; raises ``TooManyRequests``."""
    resources = deps.ctx.resources
    try:
        result = await row.hit(resources.limiter, resources.settings, deps.ip)
    except Exception as exc:  # Redis down: fail open
        log.warning("%s rate limit not applied (%s)", row.bucket, type(exc).__name__)
        return
    if not result.allowed:
        raise TooManyRequests(result.retry_after)


async def challenge_retry_after(resources: Resources, ip: str) -> int | None:
    """Count one new challenge for ``ip``; None when allowed, else seconds to wait."""
    result = await CHALLENGE.hit(resources.limiter, resources.settings, ip)
    return None if result.allowed else result.retry_after
