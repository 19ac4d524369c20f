"""RepeatedFailures against the local Redis, in a prefix of the test's own (deleted after)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from tests.harness import infra
from token_service.repeated_failures import RepeatedFailures

pytestmark = pytest.mark.integration
FAILED = "token.client_auth_failed"


@pytest.fixture
async def redis_and_prefix() -> AsyncIterator[tuple[Redis, str]]:
    client = Redis.from_url(infra.REDIS_URL)
    prefix = f"test-{secrets.token_hex(8)}:"
    try:
        yield client, prefix
    finally:
        keys = [key async for key in client.scan_iter(match=prefix + "*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def test_one_row_per_window_the_next_one_counts_the_rest(
    redis_and_prefix: tuple[Redis, str],
) -> None:
    failures = RepeatedFailures(*redis_and_prefix, window_seconds=1, keep_seconds=60)
    first = [await failures.should_write(FAILED, "app", "203.0.113.1", "bad") for _ in range(5)]
    assert first == [0, None, None, None, None]
    await asyncio.sleep(1.1)
    assert await failures.should_write(FAILED, "app", "203.0.113.1", "bad") == 4
    assert await failures.should_write(FAILED, "app", "203.0.113.1", "bad") is None
    await asyncio.sleep(1.1)
    assert await failures.should_write(FAILED, "app", "203.0.113.1", "bad") == 1


async def test_each_part_of_the_identity_counts(redis_and_prefix: tuple[Redis, str]) -> None:
    failures = RepeatedFailures(*redis_and_prefix)
    base = (FAILED, "app", "203.0.113.1", "bad")
    assert await failures.should_write(*base) == 0
    for changed in (
        ("other.action", *base[1:]),
        (FAILED, "app2", *base[2:]),
        (FAILED, "app", "2001:db8::1", "bad"),
        (*base[:3], "other reason"),
    ):
        assert await failures.should_write(*changed) == 0, changed
    assert await failures.should_write(*base) is None


async def test_concurrent_identical_failures_write_one_row(
    redis_and_prefix: tuple[Redis, str],
) -> None:
    failures = RepeatedFailures(*redis_and_prefix)
    answers = await asyncio.gather(
        *(failures.should_write(FAILED, "x" * 5000, "198.51.100.9", "bad") for _ in range(50))
    )
    assert answers.count(0) == 1 and answers.count(None) == 49
    redis, prefix = redis_and_prefix
    keys = [key async for key in redis.scan_iter(match=prefix + "*")]
    assert len(keys) == 2 and all(len(key) < len(prefix) + 50 for key in keys)


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="window_seconds"):
        RepeatedFailures(Redis(), "p:", window_seconds=60, keep_seconds=10)
