"""What a stack holds, taken whole to compare before and after a request that must change
nothing: every Redis key of its prefix, and every table's rows."""

from __future__ import annotations

import asyncpg
from redis.asyncio import Redis

from tests.harness import infra
from tests.harness.stack import Stack

#: A key with less than this left to live is not compared: it may expire between the two
#: snapshots (a one-minute audit gate of an earlier test), which no request wrote.
_EXPIRING_MS = 10_000


async def _redis_snapshot(stack: Stack) -> dict[bytes, bytes | None]:
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    try:
        keys = [k async for k in redis.scan_iter(match=stack.env["SVC_REDIS_PREFIX"] + "*")]
        taken = {}
        for key in sorted(keys):
            if 0 <= await redis.pttl(key) < _EXPIRING_MS:
                continue
            taken[key] = await redis.dump(key)
        return taken
    finally:
        await redis.aclose()


def redis_snapshot(stack: Stack) -> dict[bytes, bytes | None]:
    """Every key of the stack's prefix and its serialized value, but those about to
    expire."""
    return infra.run(_redis_snapshot(stack))


async def _database_fingerprint(stack: Stack) -> dict[str, str]:
    dsn = stack.database_url.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(dsn)
    try:
        tables = await conn.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        )
        result = {}
        for row in tables:
            name = row["table_name"]
            # The token service writes its issued-token counts (``tokens.issued``) in the
            # background, up to a flush interval after the tokens: not this request's write.
            where = " WHERE t.action <> 'tokens.issued'" if name == "audit_events" else ""
            result[name] = await conn.fetchval(
                f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) "  # noqa: S608
                f'FROM "{name}" t{where}'
            )
        return result
    finally:
        await conn.close()


def database_fingerprint(stack: Stack) -> dict[str, str]:
    """A digest of every row of every table: equal fingerprints, nothing written."""
    return infra.run(_database_fingerprint(stack))
