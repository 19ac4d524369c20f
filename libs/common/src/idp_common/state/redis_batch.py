"""Plain reads and writes of one event-loop turn, sent to Redis together.

``get`` and ``get_many`` calls of one turn become one ``MGET``; ``set`` calls one pipeline
of ``SET`` commands (no ``MULTI``: each ``SET`` is atomic by itself and the writes are
independent). Each caller still gets the answer Redis gave at that moment (see
:mod:`idp_common.state.turn_batch`); errors reach every caller of the batch.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import cast

from redis.asyncio import Redis

from idp_common.state.turn_batch import TurnBatch

__all__ = ["RedisBatch"]


@dataclass(frozen=True)
class _Set:
    key: str
    value: bytes
    ttl_seconds: int
    only_if_exists: bool


class RedisBatch:
    """One per application (per Redis client)."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._gets: TurnBatch[tuple[str, ...], list[bytes | None]] = TurnBatch(self._mget)
        self._sets: TurnBatch[_Set, None] = TurnBatch(self._pipeline_set)

    async def get(self, key: str) -> bytes | None:
        return (await self._gets.submit((key,)))[0]

    def get_many(self, keys: tuple[str, ...]) -> Awaitable[list[bytes | None]]:
        """The values of ``keys``, in their order: one call in the turn's ``MGET`` (cheaper
        than one :meth:`get` each, which the caller would have to gather). Not a coroutine
        of its own: the batch's answer is awaited as it is."""
        return self._gets.submit(keys)

    async def set(
        self, key: str, value: bytes, *, ttl_seconds: int, only_if_exists: bool = False
    ) -> None:
        """``SET key value EX ttl`` (``XX`` with ``only_if_exists``: an update never
        brings back a key another request deleted in the meantime)."""
        await self._sets.submit(_Set(key, value, ttl_seconds, only_if_exists))

    async def _mget(self, calls: list[tuple[str, ...]]) -> list[list[bytes | None]]:
        unique = list(dict.fromkeys(key for keys in calls for key in keys))
        values = cast("list[bytes | None]", await self._redis.mget(unique))
        found = dict(zip(unique, values, strict=True))
        return [[found[key] for key in keys] for keys in calls]

    async def _pipeline_set(self, writes: list[_Set]) -> list[None]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for write in writes:
                pipe.set(write.key, write.value, ex=write.ttl_seconds, xx=write.only_if_exists)
            await pipe.execute()
        return [None] * len(writes)
