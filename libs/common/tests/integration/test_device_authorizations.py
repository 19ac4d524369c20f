"""DeviceAuthorizations against the local Redis: the contract of its module (RFC 8628)."""

from __future__ import annotations

import asyncio
import time

import pytest
from redis.asyncio import Redis

from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.protocol.rfc8628_device import (
    AuthorizationPending,
    DeviceApproval,
    DeviceState,
    SlowDown,
    device_code_digest,
    new_device_code,
    new_user_code,
)
from idp_common.state.device_authorizations import EXPIRED_KEPT_SECONDS, DeviceAuthorizations

pytestmark = pytest.mark.integration

APPROVAL = DeviceApproval(
    user_id="u1", scopes=["openid"], auth_time=1, acr="urn:idp:acr:1fa", amr=["pwd"], sid="s1"
)


def _state(now: int, user_code: str | None = None) -> DeviceState:
    return DeviceState(
        client_id="tv",
        scopes=["openid"],
        user_code=user_code or new_user_code(),
        expires_at=now + 600,
        interval=5,
    )


async def test_create_stores_both_keys_and_refuses_a_taken_user_code(
    redis_client: Redis, prefix: str
) -> None:
    store = DeviceAuthorizations(redis_client, prefix)
    now = int(time.time())
    code, state = new_device_code(), _state(now)
    assert await store.create(code, state, now)
    assert await store.find_by_user_code(state.user_code) == state
    assert not await store.create(new_device_code(), _state(now, state.user_code), now)
    assert await store.find_by_user_code(state.user_code) == state  # the first one stays
    state_ttl = await redis_client.ttl(f"{prefix}device:{device_code_digest(code)}")
    assert 600 < state_ttl <= 600 + EXPIRED_KEPT_SECONDS
    assert 0 < await redis_client.ttl(f"{prefix}device-user:{state.user_code}") <= 600
    # Only the digest of the device code is stored.
    raw = b"".join(
        [await redis_client.get(key) or b"" async for key in _keys(redis_client, prefix)]
    )
    assert code.encode() not in raw


async def _keys(redis_client: Redis, prefix: str):  # type: ignore[no-untyped-def]
    async for key in redis_client.scan_iter(match=f"{prefix}device*"):
        yield key


async def test_polls_are_judged_and_written_back(redis_client: Redis, prefix: str) -> None:
    store = DeviceAuthorizations(redis_client, prefix)
    now = int(time.time())
    code, state = new_device_code(), _state(now)
    await store.create(code, state, now)
    first = await store.poll(code, "tv", now * 1000)
    assert isinstance(first.error, AuthorizationPending)
    second = await store.poll(code, "tv", now * 1000 + 10)
    assert isinstance(second.error, SlowDown)
    third = await store.poll(code, "tv", now * 1000 + 6_000)  # 6 s: the grown interval is 10
    assert isinstance(third.error, SlowDown)
    assert isinstance((await store.poll(code, "other", now * 1000)).error, InvalidGrant)


async def test_an_approved_code_is_redeemed_exactly_once_under_concurrency(
    redis_client: Redis, prefix: str
) -> None:
    store = DeviceAuthorizations(redis_client, prefix)
    now = int(time.time())
    code, state = new_device_code(), _state(now)
    await store.create(code, state, now)
    decided = await store.decide(state.user_code, now, APPROVAL)
    assert decided is not None and decided.status == "approved"
    assert await store.find_by_user_code(state.user_code) is None  # the user code is spent
    assert await store.decide(state.user_code, now, None) is None  # and decided once
    outcomes = await asyncio.gather(*(store.poll(code, "tv", now * 1000) for _ in range(20)))
    redeemed = [o for o in outcomes if o.redeem]
    assert len(redeemed) == 1
    assert redeemed[0].approval == APPROVAL
    assert all(isinstance(o.error, InvalidGrant) for o in outcomes if not o.redeem)


async def test_a_redemption_taken_back_can_be_redeemed_again(
    redis_client: Redis, prefix: str
) -> None:
    store = DeviceAuthorizations(redis_client, prefix)
    now = int(time.time())
    code, state = new_device_code(), _state(now)
    await store.create(code, state, now)
    await store.decide(state.user_code, now, APPROVAL)
    outcome = await store.poll(code, "tv", now * 1000)
    assert outcome.redeem
    approved = DeviceState(
        client_id="tv",
        scopes=["openid"],
        user_code="",
        expires_at=now + 60,
        interval=5,
        status="approved",
        approval=APPROVAL,
    )
    await store.restore(code, approved, now)
    assert (await store.poll(code, "tv", now * 1000)).redeem


async def test_wrong_user_codes_are_counted_per_address(redis_client: Redis, prefix: str) -> None:
    store = DeviceAuthorizations(redis_client, prefix)
    waits = [await store.attempt_user_code("203.0.113.9", 3, 3600) for _ in range(3)]
    assert waits == [0, 0, 0]
    await store.right_user_code("203.0.113.9")  # one of them named a live code
    assert await store.attempt_user_code("203.0.113.9", 3, 3600) == 0
    assert 3500 < await store.attempt_user_code("203.0.113.9", 3, 3600) <= 3600
    assert await store.attempt_user_code("203.0.113.10", 3, 3600) == 0  # another address
    # An IPv6 address counts for its /64.
    for _ in range(3):
        assert await store.attempt_user_code("2001:db8:1:2::1", 3, 3600) == 0
    assert await store.attempt_user_code("2001:db8:1:2::ffff", 3, 3600) > 0
