"""Per-account throttles on failed sign-ins (docs/design.md §2: growing delay, no permanent
lock-out; contract §8: per-account limits run inside the service; docs/security.md
"Throttling").

Two kinds of counter, each a Redis hash ``{count, last}``:

- **first factor** (:data:`FIRST_FACTOR`): per account name as typed (the normalised
  email, whether or not the account exists, so the answer is alike for both); counts wrong
  passwords, and faces where a face replaces the password. A successful first factor
  clears it.
- **second factor** (:data:`SECOND_FACTOR`): per person and factor, ``code`` (one-time
  codes and recovery codes), ``face`` or ``passkey`` (a passkey after the first step).
  Only a success *of that factor* clears it; a correct password never does, so knowing the
  password does not buy fresh guesses at the code (docs/security.md, attack 1).

Each attempt is one atomic script call (:meth:`Throttle.attempt`): when the counter's
delay since its last failure has not passed, the attempt is refused with the seconds
left; otherwise it is counted as a failure *before* it is evaluated and allowed. Parallel
attempts therefore cannot all pass one check: of many concurrent wrong passwords for one
account, at most :attr:`Policy.free` are evaluated (attack 3). A success clears the
counter with :meth:`Throttle.clear`. An attempt that could not be evaluated because a
dependency failed before the check (the database was down: 503) is given back with
:meth:`Throttle.give_back`: nothing was guessed, and an outage must not throttle the
people who tried during it (make chaos).

A counter is kept for :attr:`Policy.keep_seconds` after its last failure, much longer
than the longest delay, so waiting out a delay does not bring the free attempts back.

Redis keys (no email is stored in Redis): ``{prefix}signin-fail:<sha256(account)[:32]>``
and ``{prefix}factor-fail:<factor>:<person id>``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from redis.asyncio import Redis

__all__ = [
    "FIRST_FACTOR",
    "SECOND_FACTOR",
    "Policy",
    "Throttle",
    "Verdict",
    "delay_after",
    "wait_left",
]


@dataclass(frozen=True)
class Policy:
    """A throttle's numbers: ``free`` failures cost nothing; the next waits ``base``
    seconds after the last failure, doubling with each further failure up to ``cap``."""

    key_name: str
    free: int
    base_seconds: int
    cap_seconds: int
    keep_seconds: int


#: Passwords (and faces replacing them): 5 free, then 1 s, 2 s, 4 s, ... at most 15 min.
FIRST_FACTOR: Final = Policy("signin-fail", 5, 1, 15 * 60, 24 * 3600)
#: One-time codes, recovery codes, faces as a second step: 5 free, then 1 min, 2 min,
#: 4 min, ... at most a day; kept a week.
SECOND_FACTOR: Final = Policy("factor-fail", 5, 60, 24 * 3600, 7 * 24 * 3600)


def delay_after(failures: int, policy: Policy = FIRST_FACTOR) -> int:
    """Seconds to wait after the last of ``failures`` failures (0 below the threshold)."""
    if failures < policy.free:
        return 0
    doublings = failures - policy.free
    if doublings >= 40:  # far beyond the cap; keeps 2**n small
        return policy.cap_seconds
    return int(min(policy.base_seconds * 2**doublings, policy.cap_seconds))


def wait_left(failures: int, last_failure: float, now: float, policy: Policy = FIRST_FACTOR) -> int:
    """Whole seconds still to wait (0: an attempt is allowed now)."""
    delay = delay_after(failures, policy)
    left = last_failure + delay - now
    return math.ceil(left) if delay and left > 0 else 0


class Verdict(NamedTuple):
    """One attempt: allowed (and counted as a failure until cleared) or refused with the
    seconds to wait; ``failures``: the counter after the attempt."""

    allowed: bool
    retry_after: int
    failures: int


# KEYS[1]: the counter. ARGV: now, free, base, cap, keep. The delay rule is delay_after's
# (tests/integration/test_throttle_script.py compares the two).
# Returns {allowed (0/1), milliseconds left, count}.
_ATTEMPT: Final = """
local now = tonumber(ARGV[1])
local free, base, cap, keep = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0')
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local delay = 0
if count >= free then
  local doublings = math.min(count - free, 40)
  delay = math.min(base * 2 ^ doublings, cap)
end
local left = last + delay - now
if delay > 0 and left > 0 then
  return {0, math.ceil(left * 1000), count}
end
redis.call('HSET', KEYS[1], 'count', count + 1, 'last', ARGV[1])
redis.call('EXPIRE', KEYS[1], keep)
return {1, 0, count + 1}
"""

# KEYS[1]: the counter. One attempt fewer (never below zero); ``last`` stays.
_GIVE_BACK: Final = """
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0')
if count > 0 then redis.call('HSET', KEYS[1], 'count', count - 1) end
return count
"""


class Throttle:
    """One kind of counter (:data:`FIRST_FACTOR` or :data:`SECOND_FACTOR`) in Redis."""

    def __init__(self, redis: Redis, prefix: str, policy: Policy) -> None:
        self._redis = redis
        self._prefix = prefix
        self.policy = policy
        self._script = redis.register_script(_ATTEMPT)
        self._give_back = redis.register_script(_GIVE_BACK)

    def key(self, subject: str) -> str:
        """The Redis key of ``subject``: an account name (hashed) or ``factor:person``."""
        if self.policy is FIRST_FACTOR:
            subject = hashlib.sha256(subject.strip().lower().encode()).hexdigest()[:32]
        return f"{self._prefix}{self.policy.key_name}:{subject}"

    async def retry_after(self, subject: str, now: float) -> int:
        """Seconds ``subject`` must still wait (a read: counts nothing)."""
        count, last = await self._redis.hmget(self.key(subject), ["count", "last"])
        if count is None or last is None:
            return 0
        return wait_left(int(count), float(last), now, self.policy)

    async def attempt(self, subject: str, now: float) -> Verdict:
        """Check and count one attempt at once (see the module)."""
        p = self.policy
        reply: Any = await self._script(
            keys=[self.key(subject)],
            args=[repr(now), p.free, p.base_seconds, p.cap_seconds, p.keep_seconds],
        )
        allowed, left_ms, count = (int(value) for value in reply)
        retry_after = 0 if allowed else max(1, math.ceil(left_ms / 1000))
        return Verdict(bool(allowed), retry_after, count)

    async def clear(self, subject: str) -> None:
        await self._redis.delete(self.key(subject))

    async def give_back(self, subject: str) -> None:
        """Uncount one attempt of ``subject`` that was counted but never evaluated."""
        await self._give_back(keys=[self.key(subject)])


def factor_subject(factor: str, user_id: object) -> str:
    """The second-factor counter of ``factor`` (``code`` or ``face``) of a person."""
    return f"{factor}:{user_id}"
