"""The change stamp a cache checks before it trusts itself (idp_common.state.change_stamp)."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from idp_common.state.change_stamp import CLIENTS, StampWatch, bump
from idp_common.state.redis_batch import RedisBatch

pytestmark = pytest.mark.integration


async def test_first_look_and_every_bump_count_as_changed(redis_client: Redis, prefix: str) -> None:
    watch = StampWatch(RedisBatch(redis_client), prefix, CLIENTS)
    assert await watch.changed() is True  # nothing seen yet: the cache is not trusted
    assert await watch.changed() is False
    await bump(redis_client, prefix, CLIENTS)
    assert await watch.changed() is True
    assert await watch.changed() is False
    await bump(redis_client, prefix, "users")  # another stamp does not move this one
    assert await watch.changed() is False


async def test_an_unreadable_stamp_counts_as_changed(prefix: str) -> None:
    unreachable = Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
    try:
        watch = StampWatch(RedisBatch(unreachable), prefix, CLIENTS)
        assert await watch.changed() is True
        assert await watch.changed() is True
    finally:
        await unreachable.aclose()
