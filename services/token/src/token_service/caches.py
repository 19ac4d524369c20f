"""Small in-process caches with a time to live (docs/decisions.md "Sign-in and tokens").

The token endpoint authenticates a client on every request and the userinfo endpoint
reads a person on every request; reading the same rows from Postgres thousands of times
a second is the bottleneck the performance targets rule out. Each worker keeps a few
seconds' copy instead. What this costs: a change (a rotated secret, a removed scope, a
disabled person, a new display name) reaches the token service up to ``ttl`` seconds
late. Absent rows are never cached, so a client or person created a moment ago is found.

Concurrent misses of one key share one load (single flight), so a cold cache under load
sends one query per key, not one per request.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TTLCache(Generic[K, V]):
    """Least-recently-stored eviction beyond ``max_entries``; entries live ``ttl`` seconds."""

    def __init__(
        self,
        ttl: float,
        max_entries: int = 4096,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._loading: dict[K, asyncio.Future[V | None]] = {}
        self._epoch = 0  # moved by clear(): a load begun before it is not stored

    def get(self, key: K) -> V | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= self._clock():
            self._entries.pop(key, None)
            return None
        return entry[1]

    def put(self, key: K, value: V) -> None:
        self._entries[key] = (self._clock() + self._ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def discard(self, key: K) -> None:
        self._entries.pop(key, None)

    def clear(self) -> None:
        """Forget everything, including loads under way (their callers still get their
        answer, but it is not kept, and later callers load afresh)."""
        self._entries.clear()
        self._loading.clear()
        self._epoch += 1

    async def get_or_load(self, key: K, load: Callable[[], Awaitable[V | None]]) -> V | None:
        """The cached value, or ``load()``'s (stored unless None)."""
        cached = self.get(key)
        if cached is not None:
            return cached
        pending = self._loading.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[V | None] = asyncio.get_running_loop().create_future()
        self._loading[key] = future
        epoch = self._epoch
        try:
            value = await load()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise, nobody warns
            raise
        finally:
            if self._loading.get(key) is future:
                del self._loading[key]
        future.set_result(value)
        if value is not None and epoch == self._epoch:
            self.put(key, value)
        return value
