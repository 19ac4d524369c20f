"""Device authorizations in Redis (RFC 8628; the rules are
:mod:`idp_common.protocol.rfc8628_device`).

Keys (under the deployment's ``SVC_REDIS_PREFIX``):

- ``{prefix}device:<sha256(device_code)>``: the :class:`DeviceState` JSON. It lives
  :data:`EXPIRED_KEPT_SECONDS` past the code's expiry, so that a late poll is answered
  ``expired_token`` rather than ``invalid_grant``.
- ``{prefix}device-user:<user code>``: the device key's digest; it lives exactly as long
  as the code and is deleted by the person's decision (a user code is decided once).
- ``{prefix}device-fail:<address>``: wrong user codes entered from one address
  (:meth:`DeviceAuthorizations.attempt_user_code`), an hour after the first.

Contract:

- :meth:`create` stores both keys only when the user code is not taken (``SET NX``
  first; a collision answers False and the caller draws another code).
- :meth:`poll` and :meth:`decide` read, judge (the pure rules) and write back in one
  optimistic transaction (``WATCH``/``MULTI``), retried when another writer changed the
  key in between: of concurrent polls of an approved code exactly one redeems it (the
  state is deleted in the same transaction), every other one finds it gone
  (``invalid_grant``). :meth:`restore` puts a redeemed state back when the tokens could
  not be issued (a dependency failed), so the device's next poll succeeds.
- Redis errors propagate (the callers answer 503).
"""

from __future__ import annotations

from typing import Any, Final

import msgspec
from redis.asyncio import Redis
from redis.exceptions import WatchError

from idp_common.protocol.caller_address import rate_limit_address
from idp_common.protocol.rfc8628_device import (
    DeviceApproval,
    DeviceState,
    PollOutcome,
    SlowDown,
    decide,
    device_code_digest,
    poll,
)
from idp_common.state.ratelimit import key_part

__all__ = ["EXPIRED_KEPT_SECONDS", "DeviceAuthorizations"]

#: A device code's state is kept this long after it expired (``expired_token``).
EXPIRED_KEPT_SECONDS: Final = 600
#: Retries of an optimistic transaction that lost to a concurrent writer.
_RETRIES: Final = 8
_decoder = msgspec.json.Decoder(DeviceState)
_encoder = msgspec.json.Encoder()

# KEYS[1]: the address's counter. ARGV: limit, window (s). Counts one attempt unless the
# limit is reached; returns {allowed (0/1), seconds left in the window}.
_ATTEMPT: Final = """
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then
  return {0, redis.call('TTL', KEYS[1])}
end
redis.call('INCR', KEYS[1])
if count == 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return {1, 0}
"""
# KEYS[1]: the counter. One attempt fewer, never below zero.
_GIVE_BACK: Final = """
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return count
"""


class DeviceAuthorizations:
    """Repository of device authorizations (see the module)."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix
        self._attempt = redis.register_script(_ATTEMPT)
        self._give_back = redis.register_script(_GIVE_BACK)

    def _state_key(self, digest: str) -> str:
        return f"{self._prefix}device:{digest}"

    def _user_key(self, user_code: str) -> str:
        return f"{self._prefix}device-user:{user_code}"

    def _fail_key(self, address: str) -> str:
        return f"{self._prefix}device-fail:{key_part(rate_limit_address(address))}"

    async def create(self, device_code: str, state: DeviceState, now: int) -> bool:
        """Store a new authorization; False when its user code is already taken."""
        digest = device_code_digest(device_code)
        ttl = max(1, state.expires_at - now)
        if not await self._redis.set(self._user_key(state.user_code), digest, ex=ttl, nx=True):
            return False
        keep = ttl + EXPIRED_KEPT_SECONDS
        await self._redis.set(self._state_key(digest), _encoder.encode(state), ex=keep)
        return True

    async def find_by_user_code(self, user_code: str) -> DeviceState | None:
        """The authorization a (normalised) user code names, or None."""
        digest = await self._redis.get(self._user_key(user_code))
        if digest is None:
            return None
        raw = await self._redis.get(self._state_key(_text(digest)))
        return None if raw is None else _decoder.decode(raw)

    async def poll(self, device_code: str, client_id: str, now_ms: int) -> PollOutcome:
        """One token request for ``device_code`` (RFC 8628 §3.4): judged and written back
        atomically; a redeemed state is deleted in the same transaction."""
        key = self._state_key(device_code_digest(device_code))
        for _ in range(_RETRIES):
            async with self._redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    outcome = poll(_decoder.decode(raw) if raw else None, client_id, now_ms)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    if outcome.redeem:
                        pipe.delete(key)
                    elif outcome.state is not None:
                        pipe.set(key, _encoder.encode(outcome.state), keepttl=True)
                    else:
                        return outcome
                    await pipe.execute()
                    return outcome
                except WatchError:
                    continue
        return PollOutcome(error=SlowDown("the device code is polled concurrently; slow down"))

    async def restore(self, device_code: str, state: DeviceState, now: int) -> None:
        """Put back a redeemed state whose tokens could not be issued (unless a new one
        took its key meanwhile, which cannot happen for a 256-bit code)."""
        ttl = max(1, state.expires_at - now) + EXPIRED_KEPT_SECONDS
        key = self._state_key(device_code_digest(device_code))
        await self._redis.set(key, _encoder.encode(state), ex=ttl, nx=True)

    async def decide(
        self, user_code: str, now: int, approval: DeviceApproval | None
    ) -> DeviceState | None:
        """Record the person's decision on the authorization ``user_code`` names (None:
        denied); the user code is spent. None when it is unknown, expired or decided."""
        user_key = self._user_key(user_code)
        for _ in range(_RETRIES):
            async with self._redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(user_key)
                    digest = await pipe.get(user_key)
                    if digest is None:
                        return None
                    key = self._state_key(_text(digest))
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    decided = decide(_decoder.decode(raw) if raw else None, now, approval)
                    if decided is None:
                        return None
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.set(key, _encoder.encode(decided), keepttl=True)
                    pipe.delete(user_key)
                    await pipe.execute()
                    return decided
                except WatchError:
                    continue
        return None

    async def attempt_user_code(self, address: str, limit: int, window: int) -> int:
        """Count one user-code attempt of ``address`` before it is judged; 0 when allowed,
        else the seconds until the address may try again (nothing counted)."""
        reply: Any = await self._attempt(keys=[self._fail_key(address)], args=[limit, window])
        allowed, left = int(reply[0]), int(reply[1])
        return 0 if allowed else max(1, left)

    async def right_user_code(self, address: str) -> None:
        """The attempt named a live code: it is not a wrong one (given back)."""
        await self._give_back(keys=[self._fail_key(address)])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
