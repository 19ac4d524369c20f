"""Single use of DPoP proofs (RFC 9449 §11.1), in Redis.

A proof is accepted for ``IAT_WINDOW_SECONDS`` either side of its ``iat``; within that
time its ``jti`` must not be accepted twice. One key per proof:
``{prefix}dpop-jti:{sha256(jkt, jti)}``, written with ``SET NX EX``
(:data:`~idp_common.protocol.rfc9449_dpop.REPLAY_TTL_SECONDS`), so the first presentation
wins and every other one, at any process, finds it. The key is a digest: a client's
``jti`` (any string up to 256 characters) never becomes a Redis key as such.

Redis errors propagate: the caller answers 503 (a proof that cannot be checked for
replay is not accepted).
"""

from __future__ import annotations

import hashlib
from typing import Final

from redis.asyncio import Redis

from idp_common.protocol.rfc9449_dpop import REPLAY_TTL_SECONDS

__all__ = ["DpopReplayCache"]

_NAMESPACE: Final = "dpop-jti:"


class DpopReplayCache:
    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix + _NAMESPACE

    def key(self, jkt: str, jti: str) -> str:
        digest = hashlib.sha256(f"{jkt}\x00{jti}".encode()).hexdigest()
        return self._prefix + digest

    async def first_use(self, jkt: str, jti: str, ttl: int = REPLAY_TTL_SECONDS) -> bool:
        """True the first time this key's ``jti`` is seen within ``ttl`` seconds."""
        return bool(await self._redis.set(self.key(jkt, jti), b"1", nx=True, ex=ttl))
