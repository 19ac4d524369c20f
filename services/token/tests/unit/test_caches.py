"""TTLCache.clear: what was cached and what was being loaded is forgotten."""

from __future__ import annotations

import asyncio

from token_service.caches import TTLCache


async def test_clear_forgets_entries() -> None:
    cache: TTLCache[str, int] = TTLCache(ttl=60)
    cache.put("a", 1)
    cache.clear()
    assert cache.get("a") is None


async def test_a_load_begun_before_clear_is_answered_but_not_kept() -> None:
    cache: TTLCache[str, str] = TTLCache(ttl=60)
    release = asyncio.Event()

    async def old_load() -> str:
        await release.wait()
        return "old"

    async def new_load() -> str:
        return "new"

    first = asyncio.create_task(cache.get_or_load("k", old_load))
    await asyncio.sleep(0)
    cache.clear()
    # a caller after clear() does not join the stale load
    assert await cache.get_or_load("k", new_load) == "new"
    release.set()
    assert await first == "old"
    assert cache.get("k") == "new"
