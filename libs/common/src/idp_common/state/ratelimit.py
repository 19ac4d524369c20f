"""Rate limits kept in Redis (contract §8 "Limits"; docs/design.md §1: Redis holds rate limits).

A fixed-window counter per (bucket, key): the first hit creates the counter with a time to
live of one window, every hit increments it, and a hit is allowed while the count is at
most ``limit``. The window starts at the first hit and is not extended by later hits, so a
caller that keeps hammering is let in again when the window ends. Increment, expiry and
reading the remaining time are one Lua script: one round trip, atomic across replicas.
The hits a worker makes during one turn of its event loop go in one call of that script
(:class:`idp_common.state.turn_batch.TurnBatch`): the script adds each key's hits at once and
the hits of one key take the counts that key went through, in the order they were made,
so each hit is judged exactly as if it had been sent alone.

A fixed window admits at most ``2 * limit`` hits across a window boundary; that is
acceptable for the coarse per-address limits of contract §8 (``TOKEN_PER_IP``,
``RESET_PER_IP``).

Keys are ``{prefix}rl:{bucket}:{key}``. A key that is an IPv6 address counts for its /64
(``2001:db8:1:2::/64``; :func:`idp_common.protocol.caller_address.rate_limit_address`):
every per-address limit of every service goes through here, so an IPv6 caller cannot pick
a fresh bucket from its own /64 for each request. IPv4 and IPv4-mapped addresses stay one
address each. A key made only of address-like characters (letters, digits, ``.``, ``:``,
``/``, ``-``, ``_``) of at most 64 characters is kept as is, so an operator can find an
address's counter; any other key (an email, a long value) is replaced by ``h:`` and the
first 32 hex digits of its SHA-256, so Redis holds neither personal data nor unbounded
key names.

Redis errors propagate: the caller decides whether to fail open or closed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis

from idp_common.protocol.caller_address import rate_limit_address
from idp_common.state.turn_batch import TurnBatch

__all__ = ["RateLimitResult", "RateLimiter", "key_part", "rate_limit_key"]

_PLAIN_KEY: Final = re.compile(r"[A-Za-z0-9.:/_-]{1,64}")
_BUCKET: Final = re.compile(r"[A-Za-z0-9._-]{1,64}")

# KEYS: counters; ARGV: for each key its number of hits and its window in milliseconds.
# Returns, for each key, {count after its hits, milliseconds left}.
_HIT_SCRIPT: Final = """
local out = {}
for i, key in ipairs(KEYS) do
  local hits = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  local count = redis.call('INCRBY', key, hits)
  local ttl = redis.call('PTTL', key)
  if count == hits or ttl < 0 then
    redis.call('PEXPIRE', key, window)
    ttl = window
  end
  out[2 * i - 1] = count
  out[2 * i] = ttl
end
return out
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


def key_part(value: str) -> str:
    """``value`` as part of a Redis key name: as it is when made only of address-like
    characters (at most 64), else ``h:`` and the start of its SHA-256 (no personal data,
    no unbounded names)."""
    if _PLAIN_KEY.fullmatch(value):
        return value
    return "h:" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]


def rate_limit_key(prefix: str, bucket: str, key: str) -> str:
    """The Redis key of ``(bucket, key)``: ``{prefix}rl:{bucket}:{key or its hash}``, an
    IPv6 address counted by its /64."""
    if not _BUCKET.fullmatch(bucket):
        raise ValueError(f"invalid rate-limit bucket name {bucket!r}")
    return f"{prefix}rl:{bucket}:{key_part(rate_limit_address(key))}"


@dataclass(frozen=True)
class _Hit:
    redis_key: str
    window_ms: int


class RateLimiter:
    """Fixed-window rate limiter over ``redis.asyncio``. One instance per application.

    ``on_refused`` is called with the bucket's name for every refused hit (the services
    count refusals for ``/metrics``: ``idp_common.observability.metrics``, a layer above)."""

    def __init__(
        self, redis: Redis, prefix: str, *, on_refused: Callable[[str], None] | None = None
    ) -> None:
        self._redis = redis
        self._prefix = prefix
        self._on_refused = on_refused
        self._script = redis.register_script(_HIT_SCRIPT)
        self._hits: TurnBatch[_Hit, tuple[int, int]] = TurnBatch(self._send)

    async def hit(
        self, bucket: str, key: str, *, limit: int, window_seconds: int
    ) -> RateLimitResult:
        """Count one hit of ``key`` in ``bucket``; at most ``limit`` per ``window_seconds``."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        if window_seconds < 1:
            raise ValueError("window_seconds must be at least 1")
        redis_key = rate_limit_key(self._prefix, bucket, key)
        count, ttl_ms = await self._hits.submit(_Hit(redis_key, window_seconds * 1000))
        if count <= limit:
            return RateLimitResult(allowed=True, remaining=limit - count, retry_after=0)
        retry_after = max(1, -(-ttl_ms // 1000))
        if self._on_refused is not None:
            self._on_refused(bucket)  # bucket names are code constants: a bounded label
        return RateLimitResult(allowed=False, remaining=0, retry_after=retry_after)

    async def _send(self, hits: list[_Hit]) -> list[tuple[int, int]]:
        """One script call for the hits of one loop turn: (count at the hit, ms left)."""
        per_key: dict[str, list[int]] = {}
        windows: dict[str, int] = {}
        for index, hit in enumerate(hits):
            per_key.setdefault(hit.redis_key, []).append(index)
            windows.setdefault(hit.redis_key, hit.window_ms)
        keys = list(per_key)
        args: list[int] = []
        for redis_key in keys:
            args += [len(per_key[redis_key]), windows[redis_key]]
        reply: Any = await self._script(keys=keys, args=args)
        answers: list[tuple[int, int]] = [(0, 0)] * len(hits)
        for position, redis_key in enumerate(keys):
            final, ttl_ms = int(reply[2 * position]), int(reply[2 * position + 1])
            indexes = per_key[redis_key]
            first = final - len(indexes) + 1
            for offset, index in enumerate(indexes):
                answers[index] = (first + offset, ttl_ms)
        return answers

    async def reset(self, bucket: str, key: str) -> None:
        """Forget the counter of ``key`` in ``bucket`` (e.g. after a successful sign-in)."""
        await self._redis.delete(rate_limit_key(self._prefix, bucket, key))
