"""WebAuthn ceremony challenges in Redis (docs/passkeys.md).

Every options request makes a fresh 32-byte random challenge; the key is
``{prefix}passkey:{SHA-256 of the challenge}`` and holds a :class:`Ceremony`: what the
challenge is for (``register`` or ``signin``) and whose it is (the person registering, or
the sign-in challenge it belongs to). It lives ``SVC_PASSKEY_CHALLENGE_TTL`` seconds (300
by default: a page offering passkeys through autofill waits for the person).

:meth:`PasskeyCeremonies.take` reads and deletes in one command (GETDEL): a challenge
answers one ceremony only, so a replayed response finds nothing, and of two concurrent
uses exactly one gets it. A challenge given for another ceremony (a registration's used
to sign in, another sign-in's, another person's) is refused by the caller comparing
:attr:`Ceremony.purpose` and :attr:`Ceremony.subject`. A sign-in request or a person has
one live ceremony at a time (``{prefix}passkey-slot:{purpose}:{subject}`` names it): a new
options request replaces the previous one, which bounds what repeated requests keep in
Redis by the sign-in requests (themselves bounded per address) and the people.

Redis errors propagate (the endpoints answer 503).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final, Literal

import msgspec
from redis.asyncio import Redis

__all__ = ["CHALLENGE_BYTES", "Ceremony", "PasskeyCeremonies", "Purpose"]

CHALLENGE_BYTES: Final = 32
Purpose = Literal["register", "signin"]


class Ceremony(msgspec.Struct, frozen=True, kw_only=True):
    """``subject``: the person's id (``register``), or the sign-in challenge's id
    (``signin``); ``user_id``: for a sign-in, the person already known (a passkey as the
    second factor), None for a passkey that names its person (discoverable)."""

    purpose: Purpose
    subject: str
    user_id: str | None = None
    user_verification: bool = True


_decode: Final = msgspec.json.Decoder(Ceremony).decode
_encode: Final = msgspec.json.Encoder().encode


class PasskeyCeremonies:
    """The pending ceremonies of one deployment (``prefix``)."""

    def __init__(self, redis: Redis, prefix: str, ttl: int) -> None:
        self.redis = redis
        self.prefix = prefix
        self.ttl = ttl

    def _key(self, challenge: bytes) -> str:
        return f"{self.prefix}passkey:{hashlib.sha256(challenge).hexdigest()}"

    def _slot(self, ceremony: Ceremony) -> str:
        return f"{self.prefix}passkey-slot:{ceremony.purpose}:{ceremony.subject}"

    async def begin(self, ceremony: Ceremony) -> bytes:
        """A new random challenge for ``ceremony``, kept for ``ttl`` seconds. It replaces the
        previous ceremony of the same purpose and subject (a sign-in request, a person):
        one is live at a time, so options asked for over and over keep one key, not one
        each (the page needs one: its button cancels the autofill ceremony it replaces).
        The new key is written before the old one is deleted, so of two concurrent begins
        one survives."""
        challenge = secrets.token_bytes(CHALLENGE_BYTES)
        key = self._key(challenge)
        await self.redis.set(key, _encode(ceremony), ex=self.ttl)
        previous = await self.redis.set(self._slot(ceremony), key, ex=self.ttl, get=True)
        if isinstance(previous, bytes) and previous.decode() != key:
            await self.redis.delete(previous.decode())
        return challenge

    async def take(self, challenge: bytes) -> Ceremony | None:
        """The ceremony ``challenge`` was given for, removed as it is read; None when there
        is none (never given, expired, or already answered)."""
        if not challenge or len(challenge) > 1024:
            return None
        raw = await self.redis.getdel(self._key(challenge))
        return _decode(raw) if isinstance(raw, bytes) else None
