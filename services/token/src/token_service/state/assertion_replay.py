"""The ``jti`` of each client assertion, spent once (RFC 7523 §3 item 7).

One Redis key per client and ``jti`` (the ``jti`` as its SHA-256, so any string the client
chose makes a short key), ``{prefix}client-assertion:{client_id}:{sha256(jti)}``, set with
``SET NX`` and an expiry at the assertion's ``exp`` plus the verifier's leeway: an
assertion is accepted until then, and its ``jti`` is remembered at least that long. Two
requests racing with one assertion: Redis answers ``SET NX`` to one of them.

A Redis failure propagates (``RedisError``): the endpoints answer 503 with ``Retry-After``,
never accept an assertion whose ``jti`` could not be recorded.
"""

from __future__ import annotations

import hashlib

from redis.asyncio import Redis

__all__ = ["spend_jti"]


def _key(prefix: str, client_id: str, jti: str) -> str:
    digest = hashlib.sha256(jti.encode("utf-8")).hexdigest()
    return f"{prefix}client-assertion:{client_id}:{digest}"


async def spend_jti(redis: Redis, prefix: str, client_id: str, jti: str, ttl: int) -> bool:
    """True the first time ``client_id`` presents ``jti`` within ``ttl`` seconds (at least
    one); False for a replay."""
    stored = await redis.set(_key(prefix, client_id, jti), b"1", nx=True, ex=max(1, ttl))
    return bool(stored)
