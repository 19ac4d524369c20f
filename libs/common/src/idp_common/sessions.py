"""Browser sessions and sign-in challenges, both in Redis (spec §5 "Browser session").

Session: the cookie ``svc_session`` holds a random id, a bearer credential that never
appears anywhere else. Redis stores the session under ``sid`` = base64url(SHA-256(id)),
the value ID tokens carry, so neither a token nor a Redis dump reveals a cookie. A
per-person set indexes the sids of a person's sessions. A new id is made at every
sign-in (no fixation). Idle sessions expire after ``SESSION_IDLE_SECONDS``.

Challenge: the state of one pending ``/oauth2/authorize`` request while the person signs
in and consents (DESIGN.md "Sign-in"), 10 minutes, keyed by a random id that travels in
the sign-in page's URL. Its steps: ``password`` → ``totp`` (when an authenticator is
confirmed) → ``consent`` (when needed) → ``done``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import Literal

import msgspec
from redis.asyncio import Redis

from idp_common.protocol.oidc_core_claims import session_sid
from idp_common.redis_batch import RedisBatch

SESSION_IDLE_SECONDS = 24 * 3600
CHALLENGE_SECONDS = 600
#: ``face``: the face as the second step after the password (``SVC_FACE_SIGNIN=second_factor``).
Step = Literal["password", "totp", "face", "consent", "done"]


class BrowserSession(msgspec.Struct, kw_only=True):
    """One signed-in browser. ``clients`` are the client_ids reached in this session."""

    sid: str
    user_id: str
    auth_time: int
    amr: list[str]
    acr: str
    created_at: int
    last_seen: int
    ip: str | None = None
    user_agent: str | None = None
    clients: list[str] = msgspec.field(default_factory=list)


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
    created_at: int = 0
    step: Step = "password"
    # Filled in as the person proceeds:
    user_id: str | None = None
    auth_time: int | None = None
    amr: list[str] = msgspec.field(default_factory=list)
    acr: str | None = None
    session_sid: str | None = None  # the session this sign-in created (or the one in use)
    failed_codes: int = 0


_session_codec = msgspec.json.Encoder()
_session_decoder = msgspec.json.Decoder(BrowserSession)
_challenge_decoder = msgspec.json.Decoder(Challenge)


def new_session_id() -> str:
    return secrets.token_urlsafe(32)


class SessionStore:
    """Repository of sessions and challenges in Redis, every key under ``prefix``."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix
        self._batch = RedisBatch(redis)

    def _session_key(self, sid: str) -> str:
        return f"{self.prefix}session:{sid}"

    def _index_key(self, user_id: str) -> str:
        return f"{self.prefix}user-sessions:{user_id}"

    def _challenge_key(self, challenge_id: str) -> str:
        return f"{self.prefix}challenge:{challenge_id}"

    # --- sessions ------------------------------------------------------------------------
    async def create_session(
        self,
        *,
        user_id: str,
        auth_time: int,
        amr: list[str],
        acr: str,
        ip: str | None,
        user_agent: str | None,
        now: int | None = None,
    ) -> tuple[str, BrowserSession]:
        """Start a session; return (cookie value, session). Atomic with its index entry."""
        session_id = new_session_id()
        moment = int(time.time()) if now is None else now
        record = BrowserSession(
            sid=session_sid(session_id),
            user_id=user_id,
            auth_time=auth_time,
            amr=amr,
            acr=acr,
            created_at=moment,
            last_seen=moment,
            ip=ip,
            user_agent=(user_agent or "")[:300] or None,
        )
        await self._write(record, index=True)
        return session_id, record

    async def _write(self, record: BrowserSession, *, index: bool = False) -> None:
        key, value = self._session_key(record.sid), _session_codec.encode(record)
        if not index:  # one SET: shares a round trip with the writes of the same moment
            # XX: an update of a session that a logout ended meanwhile must not revive it.
            await self._batch.set(key, value, ttl_seconds=SESSION_IDLE_SECONDS, only_if_exists=True)
            return
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(key, value, ex=SESSION_IDLE_SECONDS)
            pipe.sadd(self._index_key(record.user_id), record.sid)
            pipe.expire(self._index_key(record.user_id), SESSION_IDLE_SECONDS * 7)
            await pipe.execute()

    async def get_session(self, session_id: str | None) -> BrowserSession | None:
        """The live session a cookie value names, or None (absent, expired, garbage)."""
        if not session_id or len(session_id) > 100:
            return None
        return await self.get_session_by_sid(session_sid(session_id))

    async def get_session_by_sid(self, sid: str) -> BrowserSession | None:
        raw = await self._batch.get(self._session_key(sid))
        return _session_decoder.decode(raw) if raw else None

    async def touch(
        self, record: BrowserSession, *, client_id: str | None = None, now: int | None = None
    ) -> None:
        """Record activity, and the client reached (spec §6: recipients of logout)."""
        record.last_seen = int(time.time()) if now is None else now
        if client_id and client_id not in record.clients:
            record.clients.append(client_id)
        await self._write(record)

    async def list_sessions(self, user_id: str) -> list[BrowserSession]:
        """Live sessions of a person; index entries of expired sessions are pruned."""
        sids = [
            s.decode() if isinstance(s, bytes) else s
            for s in await self.redis.smembers(self._index_key(user_id))
        ]
        found: list[BrowserSession] = []
        for sid in sids:
            record = await self.get_session_by_sid(sid)
            if record is None:
                await self.redis.srem(self._index_key(user_id), sid)
            else:
                found.append(record)
        return found

    async def end_session(self, record: BrowserSession) -> bool:
        """Delete the session and its index entry; False when it was already gone."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._session_key(record.sid))
            pipe.srem(self._index_key(record.user_id), record.sid)
            deleted, _ = await pipe.execute()
        return bool(deleted)

    async def forget_sessions(self, records: Sequence[BrowserSession]) -> None:
        """Delete these sessions and their index entries (idempotent). Called once their
        end is committed in the database (:mod:`idp_common.session_end`)."""
        if not records:
            return
        async with self.redis.pipeline(transaction=True) as pipe:
            for record in records:
                pipe.delete(self._session_key(record.sid))
                pipe.srem(self._index_key(record.user_id), record.sid)
            await pipe.execute()

    # --- challenges ----------------------------------------------------------------------
    async def save_challenge(self, challenge: Challenge) -> None:
        if not challenge.id:
            challenge.id = secrets.token_urlsafe(24)
        if not challenge.created_at:
            challenge.created_at = int(time.time())
        ttl = max(1, CHALLENGE_SECONDS - (int(time.time()) - challenge.created_at))
        await self.redis.set(
            self._challenge_key(challenge.id), _session_codec.encode(challenge), ex=ttl
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
