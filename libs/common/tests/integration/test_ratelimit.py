"""RateLimiter against the local Redis (redis://127.0.0.1:6379/0), each test in its own prefix."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from idp_common.state.ratelimit import RateLimiter, rate_limit_key

pytestmark = pytest.mark.integration


@pytest.fixture
def limiter(redis_client: Redis, prefix: str) -> RateLimiter:
    return RateLimiter(redis_client, prefix)


async def test_limit_plus_one_is_refused(limiter: RateLimiter) -> None:
    results = [
        await limiter.hit("token_ip", "203.0.113.9", limit=3, window_seconds=60) for _ in range(4)
    ]
    assert [r.allowed for r in results] == [True, True, True, False]
    assert [r.remaining for r in results] == [2, 1, 0, 0]
    assert [r.retry_after for r in results[:3]] == [0, 0, 0]
    assert 0 < results[3].retry_after <= 60


async def test_keys_and_buckets_are_independent(limiter: RateLimiter) -> None:
    assert (await limiter.hit("token_ip", "a", limit=1, window_seconds=60)).allowed
    assert not (await limiter.hit("token_ip", "a", limit=1, window_seconds=60)).allowed
    assert (await limiter.hit("token_ip", "b", limit=1, window_seconds=60)).allowed
    assert (await limiter.hit("reset_ip", "a", limit=1, window_seconds=60)).allowed


async def test_allowed_again_after_the_window(limiter: RateLimiter) -> None:
    assert (await limiter.hit("w", "k", limit=1, window_seconds=1)).allowed
    refused = await limiter.hit("w", "k", limit=1, window_seconds=1)
    assert not refused.allowed
    assert refused.retry_after == 1
    await asyncio.sleep(1.1)
    again = await limiter.hit("w", "k", limit=1, window_seconds=1)
    assert again.allowed
    assert again.remaining == 0


async def test_refused_hits_do_not_extend_the_window(
    limiter: RateLimiter, redis_client: Redis, prefix: str
) -> None:
    await limiter.hit("w", "k", limit=1, window_seconds=60)
    first_ttl = await redis_client.pttl(rate_limit_key(prefix, "w", "k"))
    await asyncio.sleep(0.05)
    for _ in range(3):
        await limiter.hit("w", "k", limit=1, window_seconds=60)
    assert 0 < await redis_client.pttl(rate_limit_key(prefix, "w", "k")) < first_ttl


async def test_counter_keys_expire_and_use_the_prefix(
    limiter: RateLimiter, redis_client: Redis, prefix: str
) -> None:
    await limiter.hit("login", "alice@example.com", limit=5, window_seconds=30)
    keys = [key async for key in redis_client.scan_iter(match=f"{prefix}*")]
    assert len(keys) == 1
    name = keys[0].decode()
    assert name.startswith(f"{prefix}rl:login:h:")
    assert "alice" not in name
    assert 0 < await redis_client.pttl(name) <= 30_000


async def test_concurrent_hits_are_counted_atomically(limiter: RateLimiter) -> None:
    results = await asyncio.gather(
        *(limiter.hit("burst", "k", limit=10, window_seconds=60) for _ in range(25))
    )
    assert sum(r.allowed for r in results) == 10


async def test_reset_forgets_the_counter(limiter: RateLimiter) -> None:
    await limiter.hit("login", "bob", limit=1, window_seconds=60)
    assert not (await limiter.hit("login", "bob", limit=1, window_seconds=60)).allowed
    await limiter.reset("login", "bob")
    assert (await limiter.hit("login", "bob", limit=1, window_seconds=60)).allowed


async def test_hits_of_one_turn_on_several_keys_are_judged_in_order(
    limiter: RateLimiter, redis_client: Redis, prefix: str
) -> None:
    # made in one loop turn, these go to Redis in one script call
    results = await asyncio.gather(
        limiter.hit("mix", "a", limit=2, window_seconds=60),
        limiter.hit("mix", "b", limit=1, window_seconds=30),
        limiter.hit("mix", "a", limit=2, window_seconds=60),
        limiter.hit("mix", "b", limit=1, window_seconds=30),
        limiter.hit("mix", "a", limit=2, window_seconds=60),
    )
    assert [r.allowed for r in results] == [True, True, True, False, False]
    assert [r.remaining for r in results] == [1, 0, 0, 0, 0]
    assert 0 < results[3].retry_after <= 30 and 30 < results[4].retry_after <= 60
    assert await redis_client.get(rate_limit_key(prefix, "mix", "a")) == b"3"
    assert await redis_client.get(rate_limit_key(prefix, "mix", "b")) == b"2"
    assert 0 < await redis_client.pttl(rate_limit_key(prefix, "mix", "b")) <= 30_000


async def test_a_batch_continues_the_count_of_earlier_hits(limiter: RateLimiter) -> None:
    assert (await limiter.hit("cont", "k", limit=3, window_seconds=60)).remaining == 2
    results = await asyncio.gather(
        *(limiter.hit("cont", "k", limit=3, window_seconds=60) for _ in range(3))
    )
    assert [r.allowed for r in results] == [True, True, False]
    assert [r.remaining for r in results] == [1, 0, 0]
