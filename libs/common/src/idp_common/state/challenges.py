"""Sign-in challenges in Redis (docs/design.md "Sign-in").

A challenge is the state of one pending ``/oauth2/authorize`` request while the person signs
in and consents (docs/design.md "Sign-in"), 10 minutes, keyed by a random id that travels in
the sign-in page's URL. Its steps: ``password`` → ``totp`` (when an authenticator is
confirmed), ``passkey`` or ``face`` → ``consent`` (when needed) → ``done``.

:class:`ChallengeStore` is the repository; :class:`idp_common.state.sessions.SessionStore`
extends it, so the endpoints reach sessions and challenges through one store.
"""

from __future__ import annotations

import secrets
import time
from typing import Literal

import msgspec
from redis.asyncio import Redis

__all__ = ["CHALLENGE_SECONDS", "Challenge", "ChallengeStore", "Step"]

CHALLENGE_SECONDS = 600
#: ``face``: the face as the second step after the password (``SVC_FACE_SIGNIN=second_factor``);
#: ``passkey``: a passkey as the second step (docs/passkeys.md).
Step = Literal["password", "totp", "face", "passkey", "consent", "done"]


class Challenge(msgspec.Struct, kw_only=True):
    """A pending authorization request and how far the person has come."""

    id: str
    client_id: str
    redirect_uri: str
    scopes: list[str]
    state: str | None = None
    nonce: str | None = None
    code_challenge: str | None = None
    code_challenge_method: str | None = None
    prompt: list[str] = msgspec.field(default_factory=list)
    max_age: int | None = None
    login_hint: str | None = None
    # OIDC Core §3.1.2.1 ``acr_values``: levels the client asked for; a face alone
    # (``urn:idp:acr:face``) is offered only when it is among them or none were asked.
    acr_values: list[str] = msgspec.field(default_factory=list)
    dpop_jkt: str | None = None  # RFC 9449 §10: the code will be bound to this DPoP key
    # OIDC Core §3.1.2.1 ``ui_locales``: the languages the client asked the pages to use,
    # in order (docs/languages.md); the challenge read negotiates from them.
    ui_locales: list[str] = msgspec.field(default_factory=list)
    created_at: int = 0
    step: Step = "password"
    # Filled in as the person proceeds:
    user_id: str | None = None
    auth_time: int | None = None
    amr: list[str] = msgspec.field(default_factory=list)
    acr: str | None = None
    session_sid: str | None = None  # the session this sign-in created (or the one in use)
    # A digest of the password hash the password step verified: the session starts only
    # while that password is still the person's (a password change at the same moment wins).
    password_stamp: str | None = None
    failed_codes: int = 0
    # A sign-in that is not an authorization request (the device page, RFC 8628): where
    # the browser goes when it is done, a URL the provider built; ``redirect_uri`` is then
    # empty, so ``/oauth2/authorize`` can never resume it into a code.
    return_to: str | None = None


_challenge_codec = msgspec.json.Encoder()
_challenge_decoder = msgspec.json.Decoder(Challenge)


class ChallengeStore:
    """Repository of challenges in Redis, every key under ``prefix``."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix

    def _challenge_key(self, challenge_id: str) -> str:
        return f"{self.prefix}challenge:{challenge_id}"

    # --- challenges ----------------------------------------------------------------------
    async def save_challenge(self, challenge: Challenge) -> None:
        """Store a new challenge, or update one that still exists: a challenge the
        per-address bound pushed out (``idp_common.state.challenge_quota``) or that expired
        meanwhile is not written back (``SET XX``)."""
        new = not challenge.id
        if new:
            challenge.id = secrets.token_urlsafe(24)
        if not challenge.created_at:
            challenge.created_at = int(time.time())
        ttl = max(1, CHALLENGE_SECONDS - (int(time.time()) - challenge.created_at))
        await self.redis.set(
            self._challenge_key(challenge.id),
            _challenge_codec.encode(challenge),
            ex=ttl,
            xx=not new,
        )

    async def get_challenge(self, challenge_id: str | None) -> Challenge | None:
        if not challenge_id or len(challenge_id) > 100:
            return None
        raw = await self.redis.get(self._challenge_key(challenge_id))
        return _challenge_decoder.decode(raw) if raw else None

    async def consume_challenge(self, challenge_id: str) -> Challenge | None:
        """Take the challenge out of Redis (GETDEL): it resumes one authorization only."""
        raw = await self.redis.getdel(self._challenge_key(challenge_id))
        return _challenge_decoder.decode(raw) if raw else None

    async def delete_challenge(self, challenge_id: str) -> None:
        await self.redis.delete(self._challenge_key(challenge_id))
