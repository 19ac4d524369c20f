"""Coalescing identical failures in the audit log (docs/security.md, attack 11).

A failed client authentication is a security decision and is audited, but one row per
attempt lets anyone who loops on ``/oauth2/introspect`` with a made-up client grow the
audit table at the rate the endpoint answers. Here a failure is identified by (action,
client_id, caller address, reason). The first one of a :data:`WINDOW_SECONDS` window is
written; identical ones inside the window only increment a Redis counter; the first one
after the window is written again and carries ``detail.repeated``: how many identical
failures were left out since the previous row. Together with the per-address limit
(``TOKEN_PER_IP``) one address writes at most one row per identity and minute.

Keys (under ``SVC_REDIS_PREFIX``; the identity is hashed, so neither an address nor a
client id of any length reaches a key name):

- ``{prefix}audit-gate:{h}``: present for the window after a row was written;
- ``{prefix}audit-repeats:{h}``: failures left out since that row, kept
  :data:`KEEP_SECONDS` after the last one (if no identical failure comes after the window
  in that time, its count is dropped: it was bounded by the rate limit anyway).

Deciding and counting is one Lua script (atomic across workers, one round trip). When
Redis cannot be reached the caller writes the row: a failure is never left unaudited.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from redis.asyncio import Redis

__all__ = ["KEEP_SECONDS", "WINDOW_SECONDS", "RepeatedFailures"]

#: One row per identical failure and window.
WINDOW_SECONDS: Final = 60
#: How long the count of left-out failures waits for the next row.
KEEP_SECONDS: Final = 3600

# KEYS: gate, repeats; ARGV: window ms, keep ms. Returns -1 (leave the row out) or the
# number of failures left out since the previous row (write a row now).
_SCRIPT: Final = """
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  return tonumber(redis.call('GETDEL', KEYS[2])) or 0
end
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return -1
"""


def _identity(action: str, client_id: str, ip: str, reason: str) -> str:
    raw = "\0".join((action, client_id, ip, reason)).encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:32]


class RepeatedFailures:
    """One instance per worker."""

    def __init__(
        self,
        redis: Redis,
        prefix: str,
        *,
        window_seconds: int = WINDOW_SECONDS,
        keep_seconds: int = KEEP_SECONDS,
    ) -> None:
        if window_seconds < 1 or keep_seconds < window_seconds:
            raise ValueError("need 1 <= window_seconds <= keep_seconds")
        self._prefix = prefix
        self._window_ms = window_seconds * 1000
        self._keep_ms = keep_seconds * 1000
        self._script = redis.register_script(_SCRIPT)

    async def should_write(self, action: str, client_id: str, ip: str, reason: str) -> int | None:
        """None: leave this failure's row out (counted). Otherwise write a row; the value is
        how many identical failures were left out before it (0: none)."""
        key = _identity(action, client_id, ip, reason)
        reply: Any = await self._script(
            keys=[f"{self._prefix}audit-gate:{key}", f"{self._prefix}audit-repeats:{key}"],
            args=[self._window_ms, self._keep_ms],
        )
        left_out = int(reply)
        return None if left_out < 0 else left_out
