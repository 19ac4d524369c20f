"""Per-account throttle on failed sign-ins (DESIGN.md §2: growing delay, no permanent
lock-out; spec §8: per-account limits run inside the service).

Failures are counted per account name as typed (the normalised email), whether or not
the account exists, so the throttle answers alike for both. From the fifth failure within
15 minutes, the next attempt waits ``2^(n-5)`` seconds after the last failure (1 s, 2 s,
4 s, ... capped at 15 minutes), answered 429 with ``Retry-After``. The count expires 15
minutes after the last failure and a success clears it. Wrong TOTP codes count against
the same account.

Redis: a hash ``{prefix}signin-fail:<sha256(account)[:32]>`` with ``count`` and ``last``
(no email is stored in Redis).
"""

from __future__ import annotations

import hashlib
import math
from typing import Final

from redis.asyncio import Redis

FREE_FAILURES: Final = 5
WINDOW_SECONDS: Final = 15 * 60
MAX_DELAY_SECONDS: Final = 15 * 60


def delay_after(failures: int) -> int:
    """Seconds to wait after the last of ``failures`` failures (0 below the threshold)."""
    if failures < FREE_FAILURES:
        return 0
    return int(min(2 ** (failures - FREE_FAILURES), MAX_DELAY_SECONDS))


def wait_left(failures: int, last_failure: float, now: float) -> int:
    """Whole seconds still to wait (0: an attempt is allowed now)."""
    left = last_failure + delay_after(failures) - now
    return math.ceil(left) if left > 0 and delay_after(failures) else 0


class AccountThrottle:
    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix

    def _key(self, account: str) -> str:
        digest = hashlib.sha256(account.strip().lower().encode()).hexdigest()[:32]
        return f"{self._prefix}signin-fail:{digest}"

    async def retry_after(self, account: str, now: float) -> int:
        count, last = await self._redis.hmget(self._key(account), ["count", "last"])
        if count is None or last is None:
            return 0
        return wait_left(int(count), float(last), now)

    async def record_failure(self, account: str, now: float) -> None:
        key = self._key(account)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hincrby(key, "count", 1)
            pipe.hset(key, "last", repr(now))
            pipe.expire(key, WINDOW_SECONDS)
            await pipe.execute()

    async def clear(self, account: str) -> None:
        await self._redis.delete(self._key(account))
