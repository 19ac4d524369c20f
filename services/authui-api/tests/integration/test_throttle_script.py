"""The throttle's Lua script against real Redis: it applies :func:`delay_after`'s rule,
counts an attempt before it is evaluated, and checks and counts in one step."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from redis.asyncio import Redis

from authui_service.throttle import FIRST_FACTOR, SECOND_FACTOR, Policy, Throttle, delay_after
from tests.harness import infra

pytestmark = pytest.mark.integration


async def _with_throttle(policy: Policy, work):  # type: ignore[no-untyped-def]
    redis = Redis.from_url(infra.REDIS_URL)
    prefix = f"idp_t_throttle_{uuid.uuid4().hex[:8]}:"
    try:
        return await work(Throttle(redis, prefix, policy))
    finally:
        keys = [k async for k in redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()


@pytest.mark.parametrize("policy", [FIRST_FACTOR, SECOND_FACTOR], ids=["first", "second"])
def test_the_script_waits_exactly_delay_after(policy: Policy) -> None:
    async def work(throttle: Throttle) -> None:
        now = 1_000_000.0
        for failures in range(25):
            verdict = await throttle.attempt("someone@example.com", now)
            assert verdict.allowed and verdict.failures == failures + 1
            wait = delay_after(failures + 1, policy)
            if wait:
                refused = await throttle.attempt("someone@example.com", now + wait - 0.5)
                assert not refused.allowed and refused.retry_after == 1
                assert await throttle.retry_after("someone@example.com", now + wait - 0.5) == 1
            now += wait

    asyncio.run(_with_throttle(policy, work))


def test_concurrent_attempts_pass_only_the_free_number() -> None:
    async def work(throttle: Throttle) -> list[bool]:
        verdicts = await asyncio.gather(*(throttle.attempt("x", 50.0) for _ in range(40)))
        return [v.allowed for v in verdicts]

    allowed = asyncio.run(_with_throttle(FIRST_FACTOR, work))
    assert allowed.count(True) == FIRST_FACTOR.free


def test_clear_forgets_and_keys_hold_no_email() -> None:
    async def work(throttle: Throttle) -> None:
        await throttle.attempt("Person@Example.com ", 10.0)
        assert "example" not in throttle.key("Person@Example.com")
        await throttle.clear("person@example.com")
        assert (await throttle.attempt("person@example.com", 10.0)).failures == 1

    asyncio.run(_with_throttle(FIRST_FACTOR, work))
