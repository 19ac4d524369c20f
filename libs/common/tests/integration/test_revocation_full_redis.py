"""RevocationList against a Redis of the test's own that reached its ``maxmemory`` (the
``noeviction`` refusal a full Redis gives): a failed revocation changes nothing, so a
retry revokes everything (docs/security.md, attack 5)."""

from __future__ import annotations

import secrets
import shutil
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import redis
from redis.asyncio import Redis

from idp_common.state.revocation import RevocationList
from tests.harness import infra

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]


@pytest.fixture
def own_redis_url() -> Iterator[str]:
    port = infra.free_port()
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    command += ["--appendonly", "no", "--maxmemory-policy", "noeviction"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        probe = redis.Redis(port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                probe.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        probe.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture
async def full_redis(own_redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(own_redis_url)
    try:
        yield client
    finally:
        await client.config_set("maxmemory", 0)
        await client.aclose()


async def test_a_refused_grant_revocation_keeps_the_grant_for_the_retry(
    full_redis: Redis,
) -> None:
    revocations = RevocationList(full_redis, f"t-{secrets.token_hex(4)}:")
    grant, now = uuid.uuid4(), int(time.time())
    for jti in ("a", "b"):
        await revocations.track_grant_jti(grant, jti, exp=now + 600, now=now)
    await full_redis.config_set("maxmemory", 1)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        await revocations.revoke_grant(grant, now=now)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        await revocations.track_grant_jti(grant, "c", exp=now + 600, now=now)
    await full_redis.config_set("maxmemory", 0)
    assert not await revocations.is_revoked("a")
    assert await revocations.revoke_grant(grant, now=now) == 2
    assert await revocations.is_revoked("a") and await revocations.is_revoked("b")
    assert not await revocations.is_revoked("c")
    assert await revocations.revoke_grant(grant, now=now) == 0  # the record is gone now
