"""Whether the browser session a token was issued in still stands.

Every token about a person carries the ``sid`` of the session it was issued in (an access
token in its claims, a refresh token in its row). The session stands while its key
``session:<sid>`` exists (:mod:`idp_common.state.session_keys`): however it ended (logout,
the person or an administrator ending it, a password change, idle expiry, a Redis that lost
it), the key is gone, and so is every token that stands on it. A sid the session had before
a re-authentication continued it under a new one points at the new one
(``session-moved:<sid>``); a reader follows that pointer once.

Reads go through the caller's :class:`~idp_common.state.redis_batch.RedisBatch`, so the
bearer guard asks for the session in the same ``MGET`` as the revocation list and the
change stamps. Redis errors propagate: the caller fails closed.
"""

from __future__ import annotations

from typing import cast

import msgspec
from redis.asyncio import Redis

from idp_common.state import session_keys as keys
from idp_common.state.redis_batch import RedisBatch
from idp_common.state.sessions import BrowserSession

__all__ = ["SessionStanding"]

_decoder = msgspec.json.Decoder(BrowserSession)


class SessionStanding:
    """One per application, sharing the application's batch of reads."""

    def __init__(self, redis: Redis, prefix: str, reads: RedisBatch) -> None:
        self._redis = redis
        self._prefix = prefix
        self._reads = reads

    def session_key(self, sid: str) -> str:
        """The key to read with the caller's other reads; pass its value to :meth:`follow`."""
        return keys.session_key(self._prefix, sid)

    async def follow(self, sid: str, found: bytes | None) -> bytes | None:
        """The JSON of the live session ``sid`` belongs to, given ``found``, the value of
        :meth:`session_key` read just now: itself, else the session it continued into,
        else None (ended)."""
        if found is not None:
            return found
        moved = await self._reads.get(keys.moved_key(self._prefix, sid))
        if moved is None:
            return None
        return await self._reads.get(keys.session_key(self._prefix, moved.decode()))

    async def live_session(
        self, sid: str, *, extend_pointer: bool = False
    ) -> BrowserSession | None:
        """The live session ``sid`` belongs to, or None. ``extend_pointer``: a moved sid
        that is still used (a refresh token issued before a re-authentication) keeps
        pointing for another :data:`~idp_common.state.session_keys.MOVED_SID_SECONDS`."""
        found = await self._reads.get(self.session_key(sid))
        if found is None and extend_pointer:
            key = keys.moved_key(self._prefix, sid)
            moved = cast("bytes | None", await self._redis.getex(key, ex=keys.MOVED_SID_SECONDS))
            if moved is not None:
                found = await self._reads.get(keys.session_key(self._prefix, moved.decode()))
        else:
            found = await self.follow(sid, found)
        return None if found is None else _decoder.decode(found)


def decode_session(raw: bytes) -> BrowserSession:
    """A session's JSON as :meth:`SessionStanding.follow` answers it."""
    return _decoder.decode(raw)
