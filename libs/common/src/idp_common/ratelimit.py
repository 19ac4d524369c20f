"""Rate limits kept in Redis (spec part 8 "Limits"; DESIGN.md §1: Redis holds rate limits).

A fixed-window counter per (bucket, key): the first hit creates the counter with a time to
live of one window, every hit increments it, and a hit is allowed while the count is at
most ``limit``. The window starts at the first hit and is not extended by later hits, so a
caller that keeps hammering is let in again when the window ends. Increment, expiry and
reading the remaining time are one Lua script: one round trip, atomic across replicas.

A fixed window admits at most ``2 * limit`` hits across a window boundary; that is
acceptable for the coarse per-address limits of spec part 8 (``TOKEN_PER_IP``,
``RESET_PER_IP``).

Keys are ``{prefix}rl:{bucket}:{key}``. A key made only of address-like characters
(letters, digits, ``.``, ``:``, ``-``, ``_``) of at most 64 characters is kept as is, so an
operator can find an address's counter; any other key (an email, a long value) is replaced
by ``h:`` and the first 32 hex digits of its SHA-256, so Redis holds neither personal data
nor unbounded key names.

Redis errors propagate: the caller decides whether to fail open or closed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis

__all__ = ["RateLimitResult", "RateLimiter", "rate_limit_key"]

_PLAIN_KEY: Final = re.compile(r"[A-Za-z0-9.:_-]{1,64}")
_BUCKET: Final = re.compile(r"[A-Za-z0-9._-]{1,64}")

# KEYS[1] counter; ARGV[1] window in milliseconds. Returns {count, milliseconds left}.
_HIT_SCRIPT: Final = """
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
"""


@dataclass(frozen=True)
class RateLimitResult:
    """Outcome of one hit.

    ``allowed``: the hit is within the limit. ``remaining``: hits still allowed in this
    window. ``retry_after``: whole seconds until the window ends when refused (for the
    ``Retry-After`` header), 0 when allowed.
    """

    allowed: bool
    remaining: int
    retry_after: int


def rate_limit_key(prefix: str, bucket: str, key: str) -> str:
    """The Redis key of ``(bucket, key)``: ``{prefix}rl:{bucket}:{key or its hash}``."""
    if not _BUCKET.fullmatch(bucket):
        raise ValueError(f"invalid rate-limit bucket name {bucket!r}")
    if not _PLAIN_KEY.fullmatch(key):
        key = "h:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    return f"{prefix}rl:{bucket}:{key}"


class RateLimiter:
    """Fixed-window rate limiter over ``redis.asyncio``. One instance per application."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix
        self._script = redis.register_script(_HIT_SCRIPT)

    async def hit(
        self, bucket: str, key: str, *, limit: int, window_seconds: int
    ) -> RateLimitResult:
        """Count one hit of ``key`` in ``bucket``; at most ``limit`` per ``window_seconds``."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        if window_seconds < 1:
            raise ValueError("window_seconds must be at least 1")
        redis_key = rate_limit_key(self._prefix, bucket, key)
        reply: Any = await self._script(keys=[redis_key], args=[window_seconds * 1000])
        count, ttl_ms = int(reply[0]), int(reply[1])
        if count <= limit:
            return RateLimitResult(allowed=True, remaining=limit - count, retry_after=0)
        retry_after = max(1, -(-ttl_ms // 1000))
        return RateLimitResult(allowed=False, remaining=0, retry_after=retry_after)

    async def reset(self, bucket: str, key: str) -> None:
        """Forget the counter of ``key`` in ``bucket`` (e.g. after a successful sign-in)."""
        await self._redis.delete(rate_limit_key(self._prefix, bucket, key))
