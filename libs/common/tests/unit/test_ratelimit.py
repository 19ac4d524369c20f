"""Unit tests of idp_common.state.ratelimit that need no Redis server (key naming, arguments)."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from idp_common.state.ratelimit import RateLimiter, RateLimitResult, rate_limit_key


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        pytest.param("203.0.113.9", "p:rl:token_ip:203.0.113.9", id="ipv4-kept"),
        pytest.param("2001:db8::1", "p:rl:token_ip:2001:db8::/64", id="ipv6-by-its-64"),
        pytest.param("2001:db8:0:2::1", "p:rl:token_ip:2001:db8:0:2::/64", id="ipv6-other-64"),
        pytest.param("::ffff:203.0.113.9", "p:rl:token_ip:203.0.113.9", id="mapped-as-ipv4"),
        pytest.param("unknown", "p:rl:token_ip:unknown", id="word-kept"),
    ],
)
def test_address_like_keys_are_kept(key: str, expected: str) -> None:
    assert rate_limit_key("p:", "token_ip", key) == expected


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("alice@example.com", id="email"),
        pytest.param("x" * 65, id="long"),
        pytest.param("a:b c", id="space"),
        pytest.param("", id="empty"),
        pytest.param("naïve", id="non-ascii"),
    ],
)
def test_other_keys_are_hashed(key: str) -> None:
    redis_key = rate_limit_key("p:", "login", key)
    assert redis_key.startswith("p:rl:login:h:")
    assert len(redis_key) == len("p:rl:login:h:") + 32
    assert key not in redis_key.removeprefix("p:rl:login:") or key == ""
    assert rate_limit_key("p:", "login", key) == redis_key  # deterministic


def test_hashing_separates_keys() -> None:
    assert rate_limit_key("p:", "b", "a@x") != rate_limit_key("p:", "b", "b@x")


@pytest.mark.parametrize("bucket", ["", "a:b", "a b", "x" * 65])
def test_bad_bucket_names_refused(bucket: str) -> None:
    with pytest.raises(ValueError, match="bucket"):
        rate_limit_key("p:", bucket, "k")


@pytest.mark.parametrize(
    ("limit", "window", "message"),
    [(0, 60, "limit"), (-1, 60, "limit"), (5, 0, "window_seconds")],
)
async def test_bad_arguments_refused_before_any_redis_call(
    limit: int, window: int, message: str
) -> None:
    # Port 1: nothing listens there; the call must fail on its arguments, not on Redis.
    client = Redis.from_url("redis://127.0.0.1:1/0")
    try:
        limiter = RateLimiter(client, "p:")
        with pytest.raises(ValueError, match=message):
            await limiter.hit("b", "k", limit=limit, window_seconds=window)
    finally:
        await client.aclose()


def test_result_is_frozen() -> None:
    result = RateLimitResult(allowed=True, remaining=1, retry_after=0)
    with pytest.raises(AttributeError):
        result.allowed = False  # type: ignore[misc]
