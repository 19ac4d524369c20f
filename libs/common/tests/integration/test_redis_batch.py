"""RedisBatch and RevocationList against the local Redis, each test in its own prefix."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from redis.asyncio import Redis

from idp_common.state.redis_batch import RedisBatch
from idp_common.state.revocation import RevocationList
from idp_common.state.sessions import SessionStore

pytestmark = pytest.mark.integration


async def test_gets_and_sets_of_one_turn_answer_each_caller(
    redis_client: Redis, prefix: str
) -> None:
    batch = RedisBatch(redis_client)
    await redis_client.set(f"{prefix}a", b"1")
    got = await asyncio.gather(
        batch.get(f"{prefix}a"), batch.get(f"{prefix}missing"), batch.get(f"{prefix}a")
    )
    assert got == [b"1", None, b"1"]
    await asyncio.gather(
        batch.set(f"{prefix}x", b"one", ttl_seconds=60),
        batch.set(f"{prefix}y", b"two", ttl_seconds=5),
    )
    assert await redis_client.mget([f"{prefix}x", f"{prefix}y"]) == [b"one", b"two"]
    assert 55 < await redis_client.ttl(f"{prefix}x") <= 60
    assert 0 < await redis_client.ttl(f"{prefix}y") <= 5


async def test_many_keys_of_one_caller_and_single_keys_of_others_share_one_mget(
    redis_client: Redis, prefix: str
) -> None:
    batch = RedisBatch(redis_client)
    await redis_client.mset({f"{prefix}a": b"1", f"{prefix}b": b"2"})
    calls: list[object] = []
    real_mget = redis_client.mget

    async def counting_mget(keys: list[str]) -> object:
        calls.append(list(keys))
        return await real_mget(keys)

    redis_client.mget = counting_mget  # type: ignore[method-assign]
    many, one, none = await asyncio.gather(
        batch.get_many((f"{prefix}b", f"{prefix}missing", f"{prefix}a")),
        batch.get(f"{prefix}a"),
        batch.get_many(()),
    )
    assert many == [b"2", None, b"1"]
    assert (one, none) == (b"1", [])
    assert calls == [[f"{prefix}b", f"{prefix}missing", f"{prefix}a"]]


async def test_an_update_only_if_it_exists_never_creates_the_key(
    redis_client: Redis, prefix: str
) -> None:
    batch = RedisBatch(redis_client)
    await redis_client.set(f"{prefix}live", b"old")
    await asyncio.gather(
        batch.set(f"{prefix}live", b"new", ttl_seconds=60, only_if_exists=True),
        batch.set(f"{prefix}gone", b"new", ttl_seconds=60, only_if_exists=True),
    )
    assert await redis_client.get(f"{prefix}live") == b"new"
    assert await redis_client.exists(f"{prefix}gone") == 0


async def test_a_touch_after_the_session_ended_does_not_revive_it(
    redis_client: Redis, prefix: str
) -> None:
    """A request that read the session (say, /oauth2/authorize recording the application
    reached) and writes it back after a logout ended it must not bring it back."""
    store = SessionStore(redis_client, prefix)
    cookie, session = await store.create_session(
        user_id=str(uuid.uuid4()), auth_time=1, amr=["pwd"], acr="", ip=None, user_agent=None
    )
    read = await store.get_session(cookie)
    assert read is not None
    assert await store.end_session(session) is True
    await store.touch(read, client_id="late-app")
    assert await store.get_session(cookie) is None
    assert await store.end_session(session) is False


async def test_tracked_tokens_of_a_grant_are_revoked_together(
    redis_client: Redis, prefix: str
) -> None:
    revocations = RevocationList(redis_client, prefix)
    grant, other = uuid.uuid4(), uuid.uuid4()
    now = 1_000_000
    await asyncio.gather(
        revocations.track_grant_jti(grant, "a", exp=now + 300, now=now),
        revocations.track_grant_jti(grant, "b", exp=now + 900, now=now),
        revocations.track_grant_jti(other, "c", exp=now + 300, now=now),
    )
    # the grant's list lives as long as its longest-lived token, and is never shortened
    assert 890 < await redis_client.ttl(f"{prefix}grant-jti:{grant}") <= 900
    await revocations.track_grant_jti(grant, "d", exp=now + 10, now=now)
    assert 890 < await redis_client.ttl(f"{prefix}grant-jti:{grant}") <= 900

    assert await revocations.revoke_grant(grant, now=now) == 3
    checks = await asyncio.gather(*(revocations.is_revoked(j) for j in ("a", "b", "c", "d")))
    assert checks == [True, True, False, True]
    assert 290 < await redis_client.ttl(f"{prefix}revoked-jti:a") <= 300
    assert await redis_client.exists(f"{prefix}grant-jti:{grant}") == 0
