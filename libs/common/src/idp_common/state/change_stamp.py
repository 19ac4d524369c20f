"""A change counter in Redis, so that in-process caches forget what an administrator changed.

The token service keeps each client record a few seconds in every worker
(``token_service.caches``). A rotated secret must fail at once (the old secret gets
``invalid_client`` immediately), so every write of a client bumps the ``clients`` stamp
after its transaction commits, and a worker compares the stamp with the one it last saw
before it trusts its cache: when the stamp moved, the worker forgets every cached client.

A request that starts after the administrator's answer therefore sees the change. Reading
the stamp is one ``GET``, batched with the other reads of the same event-loop turn
(:class:`~idp_common.state.redis_batch.RedisBatch`). If Redis cannot be read the caller treats the
stamp as moved: a cache that cannot be checked is not used.
"""

from __future__ import annotations

from typing import Final

from redis.asyncio import Redis
from redis.exceptions import RedisError

from idp_common.state.redis_batch import RedisBatch

CLIENTS: Final = "clients"
#: Bumped after a person's standing changed: disabled, deleted, credentials changed.
USERS: Final = "users"


def stamp_key(prefix: str, name: str) -> str:
    return f"{prefix}stamp:{name}"


async def bump(redis: Redis, prefix: str, name: str) -> None:
    """Mark ``name`` changed (after the change committed)."""
    await redis.incr(stamp_key(prefix, name))


class StampWatch:
    """Tells a cache whether ``name`` changed since the last look (one per worker)."""

    def __init__(self, batch: RedisBatch, prefix: str, name: str) -> None:
        self._batch = batch
        self._key = stamp_key(prefix, name)
        self._seen: bytes | None = None
        self._looked = False

    @property
    def key(self) -> str:
        """The stamp's key, for a caller that reads it with others (:meth:`observe`)."""
        return self._key

    async def changed(self) -> bool:
        """True the first time, after a bump, and when the stamp cannot be read."""
        try:
            current = await self._batch.get(self._key)
        except (RedisError, OSError):  # an unreadable stamp means "do not trust the cache"
            self._looked = False
            return True
        return self.observe(current)

    def observe(self, current: bytes | None) -> bool:
        """Whether the stamp moved, given its value read just now by the caller (True the
        first time)."""
        moved = not self._looked or current != self._seen
        self._seen, self._looked = current, True
        return moved
