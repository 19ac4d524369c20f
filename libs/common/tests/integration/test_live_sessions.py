"""The live-session count (``SessionStore.count_live``, the activity dashboard) against the
local Redis: a session counts from its start until it ends or expires idle; a touch moves
its expiry on; a continued session counts once; no scan, a sorted set by expiry."""

from __future__ import annotations

import time
import uuid

import pytest
from redis.asyncio import Redis

from idp_common.state.sessions import SESSION_IDLE_SECONDS, SessionStore

pytestmark = pytest.mark.integration


async def start(store: SessionStore, user_id: str, now: int) -> str:
    cookie, _ = await store.create_session(
        user_id=user_id, auth_time=now, amr=["pwd"], acr="", ip=None, user_agent=None, now=now
    )
    return cookie


async def test_sessions_count_from_start_to_end(redis_client: Redis, prefix: str) -> None:
    store = SessionStore(redis_client, prefix)
    now = int(time.time())
    assert await store.count_live(now) == 0
    cookies = [await start(store, str(uuid.uuid4()), now) for _ in range(3)]
    assert await store.count_live(now) == 3
    first = await store.get_session(cookies[0])
    assert first is not None
    assert await store.end_session(first)
    second = await store.get_session(cookies[1])
    assert second is not None
    await store.forget_sessions([second])
    assert await store.count_live(now) == 1
    assert await redis_client.zcard(f"{prefix}sessions-live") == 1


async def test_an_idle_session_stops_counting_and_a_touch_keeps_it(
    redis_client: Redis, prefix: str
) -> None:
    store = SessionStore(redis_client, prefix)
    now = int(time.time())
    idle = await start(store, str(uuid.uuid4()), now)
    busy = await start(store, str(uuid.uuid4()), now)
    record = await store.get_session(busy)
    assert record is not None and await store.get_session(idle) is not None
    await store.touch(record, client_id="app", now=now + 600)
    later = now + SESSION_IDLE_SECONDS + 1
    assert await store.count_live(later) == 1  # the idle one expired; pruned by the count
    assert await redis_client.zcard(f"{prefix}sessions-live") == 1
    assert await store.count_live(now + 600 + SESSION_IDLE_SECONDS + 1) == 0


async def test_a_continued_session_counts_once(redis_client: Redis, prefix: str) -> None:
    store = SessionStore(redis_client, prefix)
    now = int(time.time())
    user_id = str(uuid.uuid4())
    cookie = await start(store, user_id, now)
    old = await store.get_session(cookie)
    assert old is not None
    _, new = await store.create_session(
        user_id=user_id,
        auth_time=now,
        amr=["pwd"],
        acr="",
        ip=None,
        user_agent=None,
        now=now + 5,
        continues=old,
    )
    assert new.previous_sids == [old.sid]
    assert await store.count_live(now + 5) == 1
    members = await redis_client.zrange(f"{prefix}sessions-live", 0, -1, withscores=True)
    assert members == [(new.sid.encode(), float(now + 5 + SESSION_IDLE_SECONDS))]
