"""ChallengeQuota against the local Redis, with the SessionStore that stores challenges
(the quota deletes the store's keys, so the two must agree on their names)."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from idp_common.state.challenge_quota import ChallengeQuota, address_index_key
from idp_common.state.challenges import Challenge
from idp_common.state.sessions import SessionStore

pytestmark = pytest.mark.integration


async def _new_challenge(store: SessionStore) -> str:
    challenge = Challenge(id="", client_id="app", redirect_uri="https://app/cb", scopes=["openid"])
    await store.save_challenge(challenge)
    return challenge.id


async def test_the_oldest_challenges_give_way(redis_client: Redis, prefix: str) -> None:
    store = SessionStore(redis_client, prefix)
    quota = ChallengeQuota(redis_client, prefix, bound=3)
    ids: list[str] = []
    deleted: list[int] = []
    for _ in range(5):
        ids.append(await _new_challenge(store))
        deleted.append(await quota.record("203.0.113.7", ids[-1]))
    assert deleted == [0, 0, 0, 1, 1]
    assert [await store.get_challenge(i) is not None for i in ids] == [False, False] + [True] * 3
    index = address_index_key(prefix, "203.0.113.7")
    assert await redis_client.zcard(index) == 3
    assert 0 < await redis_client.ttl(index) <= 600


async def test_addresses_are_counted_apart(redis_client: Redis, prefix: str) -> None:
    store = SessionStore(redis_client, prefix)
    quota = ChallengeQuota(redis_client, prefix, bound=1)
    first = await _new_challenge(store)
    await quota.record("203.0.113.7", first)
    other = await _new_challenge(store)
    assert await quota.record("2001:db8::1", other) == 0
    assert await store.get_challenge(first) is not None


async def test_concurrent_records_never_exceed_the_bound(redis_client: Redis, prefix: str) -> None:
    store = SessionStore(redis_client, prefix)
    quota = ChallengeQuota(redis_client, prefix, bound=5)
    ids = [await _new_challenge(store) for _ in range(20)]
    await asyncio.gather(*(quota.record("198.51.100.2", i) for i in ids))
    live = [i for i in ids if await store.get_challenge(i) is not None]
    assert len(live) == 5
    assert await redis_client.zcard(address_index_key(prefix, "198.51.100.2")) == 5


async def test_entries_older_than_a_challenge_are_forgotten(
    redis_client: Redis, prefix: str
) -> None:
    store = SessionStore(redis_client, prefix)
    quota = ChallengeQuota(redis_client, prefix, bound=2, lifetime=1)
    old = await _new_challenge(store)
    await quota.record("203.0.113.8", old)
    await asyncio.sleep(1.1)
    newer = [await _new_challenge(store) for _ in range(2)]
    assert [await quota.record("203.0.113.8", i) for i in newer] == [0, 0]


def test_keys_of_odd_addresses_are_hashed() -> None:
    assert address_index_key("p:", "203.0.113.7") == "p:challenge-ip:203.0.113.7"
    odd = address_index_key("p:", "x" * 100)
    assert odd.startswith("p:challenge-ip:h:") and len(odd) == len("p:challenge-ip:h:") + 32
    with pytest.raises(ValueError, match="at least 1"):
        ChallengeQuota(Redis(), "p:", bound=0)
