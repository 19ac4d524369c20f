"""At most :data:`CHALLENGES_PER_ADDRESS` live sign-in challenges per caller address.

Why (docs/security.md, attack 4): ``GET /oauth2/authorize`` without a session stores a challenge
(:meth:`idp_common.state.sessions.SessionStore.save_challenge`, ten minutes) for anyone who asks.
The per-minute limit (``SVC_CHALLENGE_PER_IP``) slows one address down; this bound caps
what one address can hold at any moment, whatever the limit is set to: when a new
challenge would make more than the bound, the address's oldest challenges are deleted.
A person signs in with one challenge at a time, so only a flood loses anything, and what
it loses is its own oldest requests (or, behind one shared address, a request older than
the 50 that followed it).

Keys (under the deployment's ``SVC_REDIS_PREFIX``):

- ``{prefix}challenge-ip:{address}``: a sorted set of the challenge ids made for one
  address, scored by the Redis server's clock in microseconds (one clock for every
  worker); it expires with its newest challenge. An address made only of address-like
  characters is kept as is, anything else is replaced by the start of its SHA-256.
- ``{prefix}challenge:{id}``: the challenge itself, written by ``SessionStore`` (the same
  format as its ``_challenge_key``); this module only deletes it.

Recording a challenge, dropping entries older than a challenge's lifetime, and deleting
the oldest beyond the bound are one Lua script: atomic across workers, one round trip. The
script names the challenge keys it deletes from an argument, not from ``KEYS``: fine on
one Redis server (the deployment's), not on a Redis Cluster.

Redis errors propagate (the challenge could not have been stored either).
"""

from __future__ import annotations

from typing import Any, Final

from redis.asyncio import Redis

from idp_common.state.challenges import CHALLENGE_SECONDS
from idp_common.state.ratelimit import key_part

__all__ = ["CHALLENGES_PER_ADDRESS", "ChallengeQuota", "address_index_key"]

#: Live challenges one caller address may hold; a newer one pushes out the oldest.
CHALLENGES_PER_ADDRESS: Final = 50

# KEYS[1]: the address's index. ARGV: challenge id, lifetime (s), bound, challenge key
# prefix. Returns how many challenges were deleted.
_RECORD_SCRIPT: Final = """
local index = KEYS[1]
local lifetime = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
redis.call('ZREMRANGEBYSCORE', index, '-inf', now - lifetime * 1000000)
redis.call('ZADD', index, now, ARGV[1])
local excess = redis.call('ZCARD', index) - tonumber(ARGV[3])
local deleted = 0
if excess > 0 then
  local oldest = redis.call('ZPOPMIN', index, excess)
  for i = 1, #oldest, 2 do
    deleted = deleted + redis.call('DEL', ARGV[4] .. oldest[i])
  end
end
redis.call('EXPIRE', index, lifetime)
return deleted
"""


def address_index_key(prefix: str, address: str) -> str:
    """``{prefix}challenge-ip:{address or the start of its digest}`` (as rate limits name
    theirs: :func:`idp_common.state.ratelimit.key_part`)."""
    return f"{prefix}challenge-ip:{key_part(address)}"


class ChallengeQuota:
    """The per-address index of challenges. One instance per worker."""

    def __init__(
        self,
        redis: Redis,
        prefix: str,
        *,
        bound: int = CHALLENGES_PER_ADDRESS,
        lifetime: int = CHALLENGE_SECONDS,
    ) -> None:
        if bound < 1 or lifetime < 1:
            raise ValueError("bound and lifetime must be at least 1")
        self._prefix = prefix
        self._bound = bound
        self._lifetime = lifetime
        self._script = redis.register_script(_RECORD_SCRIPT)

    async def record(self, address: str, challenge_id: str) -> int:
        """Count ``challenge_id`` (already stored) against ``address``; delete the
        address's oldest challenges beyond the bound and return how many went."""
        reply: Any = await self._script(
            keys=[address_index_key(self._prefix, address)],
            args=[challenge_id, self._lifetime, self._bound, f"{self._prefix}challenge:"],
        )
        return int(reply)
