"""The one-time token of the "Sign out?" page of ``/oauth2/logout`` (docs/security.md, attack 9):
one per browser session, kept as its SHA-256 for :data:`LOGOUT_CONFIRMATION_SECONDS`.

:class:`LogoutConfirmations` is a part of :class:`idp_common.state.sessions.SessionStore`
(which ends a session's pending confirmation with the session).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from redis.asyncio import Redis

#: How long the "Sign out?" page's one-time token stays good (``/oauth2/logout``).
LOGOUT_CONFIRMATION_SECONDS = 600


class LogoutConfirmations:
    """The confirmations of a store whose ``redis`` and ``prefix`` are set by its owner."""

    redis: Redis
    prefix: str

    def _confirmation_key(self, sid: str) -> str:
        return f"{self.prefix}logout-confirm:{sid}"

    async def issue_logout_confirmation(self, sid: str) -> str:
        """A one-time token for the "Sign out?" form of session ``sid`` (10 minutes). One
        per session: a newer page replaces the older token, so a session holds one key.
        Redis keeps its SHA-256 only."""
        token = secrets.token_urlsafe(32)
        digest = hashlib.sha256(token.encode()).digest()
        await self.redis.set(self._confirmation_key(sid), digest, ex=LOGOUT_CONFIRMATION_SECONDS)
        return token

    async def consume_logout_confirmation(self, sid: str, token: str | None) -> bool:
        """True when ``token`` is the pending confirmation of session ``sid``; the pending
        token is spent either way (GETDEL), so it confirms one sign-out at most."""
        if not token or len(token) > 100:
            return False
        stored = await self.redis.getdel(self._confirmation_key(sid))
        given = hashlib.sha256(token.encode()).digest()
        return isinstance(stored, bytes) and hmac.compare_digest(stored, given)
