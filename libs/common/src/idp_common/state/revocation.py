"""The access-token revocation list, in Redis (contract §5 "Access tokens" rule 3).

Access tokens are validated offline, so revoking one cannot reach a resource API before
it expires; ``/oauth2/introspect`` and ``/oauth2/userinfo`` consult this list.

Keys (every key under the deployment's ``SVC_REDIS_PREFIX``):

- ``{prefix}revoked-jti:{jti}``: present while the revoked token would still be valid;
  its time to live is the token's remaining life, so the list never outgrows the tokens
  in circulation.
- ``{prefix}grant-jti:{grant_id}``: the ``jti`` of the access tokens issued under one
  authorization grant (a code and the refresh tokens that descend from it), kept as long
  as the newest of them lives. Replaying the code or reusing a spent refresh token
  revokes them all (RFC 6749 §4.1.2, RFC 7009 §2.1).

Calls of one worker that arrive within one turn of the event loop go to Redis together:
``is_revoked`` checks as one ``MGET`` (:class:`idp_common.state.redis_batch.RedisBatch`),
``track_grant_jti`` writes as one script call (:class:`idp_common.state.turn_batch.TurnBatch`).
Each request still asks Redis at the moment it is answered, but a busy worker pays one
round trip for many.

Revoking a grant's tokens is one Lua script too: it lists every token of the grant as
revoked, then deletes the grant's record, atomically. A Redis that refuses writes (its
``maxmemory`` reached) refuses the script's first ``SET`` before anything changed, so the
grant's record is never deleted without its tokens being listed (a retry then finds them
all again; docs/security.md, attack 5).

Redis errors propagate: the caller decides whether to fail open or closed.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis

from idp_common.state.redis_batch import RedisBatch
from idp_common.state.turn_batch import TurnBatch

__all__ = ["RevocationList"]

# KEYS: grant keys; ARGV: jti, exp, ttl for each. The hash lives as long as its
# longest-lived token: its expiry is set when it has none and only ever extended.
_TRACK_SCRIPT: Final = """
for i, key in ipairs(KEYS) do
  local ttl = tonumber(ARGV[3 * i])
  redis.call('HSET', key, ARGV[3 * i - 2], ARGV[3 * i - 1])
  if redis.call('TTL', key) < ttl then
    redis.call('EXPIRE', key, ttl)
  end
end
return 0
"""

# KEYS[1]: the grant's hash; ARGV: now, the revoked-jti key prefix, the minimum ttl.
# The SETs come before the DEL: a script's first write is where a full Redis refuses it.
_REVOKE_GRANT_SCRIPT: Final = """
local issued = redis.call('HGETALL', KEYS[1])
local now, minimum = tonumber(ARGV[1]), tonumber(ARGV[3])
local count = 0
for i = 1, #issued, 2 do
  local ttl = tonumber(issued[i + 1]) - now
  if ttl >= minimum then
    redis.call('SET', ARGV[2] .. issued[i], '1', 'EX', ttl)
    count = count + 1
  end
end
redis.call('DEL', KEYS[1])
return count
"""

#: Tokens that expire within this many seconds are not worth listing.
_MIN_TTL: Final = 1


@dataclass(frozen=True)
class _Issued:
    grant_key: str
    jti: str
    exp: int
    now: int


class RevocationList:
    """Repository of revoked access-token ids. One instance per application."""

    def __init__(self, redis: Redis, prefix: str, reads: RedisBatch | None = None) -> None:
        self._redis = redis
        self._prefix = prefix
        self._reads = reads or RedisBatch(redis)
        self._tracked: TurnBatch[_Issued, None] = TurnBatch(self._track)
        self._track_script = redis.register_script(_TRACK_SCRIPT)
        self._revoke_grant_script = redis.register_script(_REVOKE_GRANT_SCRIPT)

    def jti_key(self, jti: str) -> str:
        """The key that lists ``jti`` (present: revoked), for a caller batching its reads."""
        return f"{self._prefix}revoked-jti:{jti}"

    def _grant_key(self, grant_id: uuid.UUID | str) -> str:
        return f"{self._prefix}grant-jti:{grant_id}"

    async def revoke_jti(self, jti: str, *, exp: int, now: int) -> None:
        """List ``jti`` until ``exp``; an already expired token is not listed."""
        ttl = exp - now
        if ttl >= _MIN_TTL:
            await self._redis.set(self.jti_key(jti), b"1", ex=ttl)

    async def is_revoked(self, jti: str) -> bool:
        """Whether ``jti`` is listed now: one ``MGET`` shared with the checks made at the
        same moment (see the module)."""
        return await self._reads.get(self.jti_key(jti)) is not None

    async def track_grant_jti(
        self, grant_id: uuid.UUID | str, jti: str, *, exp: int, now: int
    ) -> None:
        """Remember that ``jti`` (valid until ``exp``) was issued under ``grant_id``; the
        writes of one loop turn share one pipeline."""
        await self._tracked.submit(_Issued(self._grant_key(grant_id), jti, exp, now))

    async def _track(self, issued: list[_Issued]) -> list[None]:
        args: list[str | int] = []
        for item in issued:
            args += [item.jti, item.exp, max(_MIN_TTL, item.exp - item.now)]
        await self._track_script(keys=[item.grant_key for item in issued], args=args)
        return [None] * len(issued)

    async def revoke_grant(self, grant_id: uuid.UUID | str, *, now: int) -> int:
        """List every still-valid access token issued under ``grant_id`` and forget the
        grant's record, atomically (see the module); return how many were listed."""
        reply: Any = await self._revoke_grant_script(
            keys=[self._grant_key(grant_id)], args=[now, self.jti_key(""), _MIN_TTL]
        )
        return int(reply)
