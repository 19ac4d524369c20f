"""The browser-session store's applications (``idp_common.state.sessions``) against the local
Redis: recorded atomically, never revived, older sessions' JSON still read."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from redis.asyncio import Redis

from idp_common.state.sessions import SessionStore

pytestmark = pytest.mark.integration
LATER = 4_000_000_000  # seconds, after the sessions were made


async def new_session(store: SessionStore) -> tuple[str, str]:
    cookie, record = await store.create_session(
        user_id=str(uuid.uuid4()), auth_time=1, amr=["pwd"], acr="", ip=None, user_agent=None
    )
    return cookie, record.sid


async def test_touches_at_once_record_every_application_in_order(
    redis_client: Redis, prefix: str
) -> None:
    store = SessionStore(redis_client, prefix)
    cookie, sid = await new_session(store)
    readers = [await store.get_session(cookie) for _ in range(30)]  # all read before any wrote
    await asyncio.gather(
        *(
            store.touch(record, client_id=f"app-{n:02}", now=LATER + n)
            for n, record in enumerate(readers)
            if record is not None
        )
    )
    loaded = await store.get_session_by_sid(sid)
    assert loaded is not None
    assert loaded.clients == [f"app-{n:02}" for n in range(30)]
    assert loaded.last_seen == LATER + 29
    # the JSON itself is never rewritten: /oauth2/authorize reads no applications
    assert (await store.get_session(cookie) or loaded).clients == []


async def test_a_touch_after_the_end_leaves_nothing_behind(
    redis_client: Redis, prefix: str
) -> None:
    store = SessionStore(redis_client, prefix)
    cookie, sid = await new_session(store)
    record = await store.get_session(cookie)
    assert record is not None
    await store.touch(record, client_id="early")
    await store.forget_sessions([record])
    await store.touch(record, client_id="late")
    assert await redis_client.exists(f"{prefix}session:{sid}", f"{prefix}session-apps:{sid}") == 0


async def test_an_older_session_keeps_the_clients_of_its_json(
    redis_client: Redis, prefix: str
) -> None:
    store = SessionStore(redis_client, prefix)
    cookie, sid = await new_session(store)
    key = f"{prefix}session:{sid}"
    older = json.loads(await redis_client.get(key) or b"{}")
    await redis_client.set(key, json.dumps({**older, "clients": ["old-app"]}), keepttl=True)
    record = await store.get_session(cookie)
    assert record is not None
    await store.touch(record, client_id="new-app")
    loaded = await store.get_session_by_sid(sid)
    assert loaded is not None
    assert loaded.clients == ["old-app", "new-app"]
    assert [s.clients for s in await store.list_sessions(record.user_id)] == [
        ["old-app", "new-app"]
    ]


async def test_a_re_authentication_continues_the_session_under_a_new_sid(
    redis_client: Redis, prefix: str
) -> None:
    store = SessionStore(redis_client, prefix)
    cookie, old_sid = await new_session(store)
    old = await store.get_session(cookie)
    assert old is not None
    await store.touch(old, client_id="first")
    new_cookie, new = await store.create_session(
        user_id=old.user_id,
        auth_time=2,
        amr=["pwd", "otp"],
        acr="",
        ip=None,
        user_agent=None,
        continues=old,
    )
    assert new.sid != old_sid and new.previous_sids == [old_sid]
    assert await store.get_session(cookie) is None  # the old cookie no longer signs in
    reloaded = await store.get_session(new_cookie)
    assert reloaded is not None
    await store.touch(reloaded, client_id="second")
    await store.touch(reloaded, client_id="first")
    loaded = await store.get_session_by_sid(new.sid)
    assert loaded is not None
    assert loaded.clients == ["first", "second"]
    # "second": only the new sid. The sids of one client come in the order of the
    # millisecond they first reached it, and by member when two share one: unordered here.
    assert {c: sorted(s) for c, s in loaded.client_sids.items()} == {
        "first": sorted([old_sid, new.sid])
    }
    assert loaded.all_sids == [new.sid, old_sid]
    assert [s.sid for s in await store.list_sessions(old.user_id)] == [new.sid]


async def test_continuing_a_session_that_ended_meanwhile_starts_afresh(
    redis_client: Redis, prefix: str
) -> None:
    store = SessionStore(redis_client, prefix)
    cookie, _ = await new_session(store)
    old = await store.get_session(cookie)
    assert old is not None
    await store.touch(old, client_id="told-already")
    await store.forget_sessions([old])  # a logout ended it while the person signed in
    _, new = await store.create_session(
        user_id=old.user_id,
        auth_time=2,
        amr=["pwd"],
        acr="",
        ip=None,
        user_agent=None,
        continues=old,
    )
    assert new.previous_sids == []
    loaded = await store.get_session_by_sid(new.sid)
    assert loaded is not None and loaded.clients == []
