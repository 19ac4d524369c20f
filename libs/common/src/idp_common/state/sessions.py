"""Browser sessions and sign-in challenges, both in Redis (spec §5 "Browser session").

Session: the cookie ``svc_session`` holds a random id, a bearer credential that never
appears anywhere else. Redis stores the session under ``sid`` = base64url(SHA-256(id)),
the value ID tokens carry, so neither a token nor a Redis dump reveals a cookie. A
per-person set indexes the sids of a person's sessions. A new id is made at every
sign-in (no fixation). Idle sessions expire after ``SESSION_IDLE_SECONDS``.

The session's JSON is written once, when it starts, and never rewritten. What changes
while it lives goes to a sorted set of its own, ``session-apps:<sid>``, in one Lua script
(:meth:`SessionStore.touch`) that acts only while the session exists: each application
reached is a member ``["<client_id>", "<sid it was given>"]`` scored with the moment (in
milliseconds) it was first reached (``ZADD NX``), and the member ``~seen`` holds the last
activity. Two codes
issued at once for two applications each add their own member, so neither is lost (issue
#19, attack 7: a read-modify-write of the whole JSON lost one of them, which then never
got its logout token). Readers that need the applications (the session list, ending a
session) read the set; ``/oauth2/authorize`` reads only the JSON. A session written
before the set existed keeps the ``clients`` of its JSON, and readers add them.

Re-authentication (a step-up, ``prompt=login``, ``max_age``) of the person already signed
in continues the session (issue #19, attack 18): a new id and cookie (no fixation), the
same applications. One script renames ``session-apps:<old>`` to ``session-apps:<new>``,
deletes the old session and writes the new one with ``previous_sids``, so no logout is
sent; when the session really ends, each application is told with the sid(s) its ID tokens
carry (the set's members say which), and refresh tokens of every earlier sid are revoked.

Challenge: the state of one pending ``/oauth2/authorize`` request while the person signs
in and consents (DESIGN.md "Sign-in"), 10 minutes, keyed by a random id that travels in
the sign-in page's URL. Its steps: ``password`` → ``totp`` (when an authenticator is
confirmed) → ``consent`` (when needed) → ``done``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

import msgspec
from redis.asyncio import Redis

from idp_common.protocol.oidc_core_claims import session_sid
from idp_common.state.redis_batch import RedisBatch
from idp_common.state.turn_batch import TurnBatch

SESSION_IDLE_SECONDS = 24 * 3600
#: Re-authentications one browser session may go through under new ids (see
#: :attr:`BrowserSession.can_continue`).
MAX_CONTINUATIONS = 16
CHALLENGE_SECONDS = 600
#: How long the "Sign out?" page's one-time token stays good (``/oauth2/logout``).
LOGOUT_CONFIRMATION_SECONDS = 600
#: ``face``: the face as the second step after the password (``SVC_FACE_SIGNIN=second_factor``).
Step = Literal["password", "totp", "face", "consent", "done"]


class BrowserSession(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One signed-in browser. ``clients`` are the client_ids reached in this session, in the
    order they were first reached: filled by the readers that load the applications
    (:meth:`SessionStore.get_session_by_sid`, :meth:`SessionStore.list_sessions`,
    :meth:`SessionStore.with_applications`), never stored in the JSON any more."""

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
    # The sids this session had before: a re-authentication of the same person continues
    # the session under a new id (:meth:`SessionStore.create_session` ``continues``).
    previous_sids: list[str] = msgspec.field(default_factory=list)
    # Read with the applications, never stored: the sids each client was given, when they
    # are not just ``[sid]`` (its ID tokens from before a re-authentication carry an older
    # one).
    client_sids: dict[str, list[str]] = msgspec.field(default_factory=dict)

    @property
    def all_sids(self) -> list[str]:
        """Every sid this session has had: refresh tokens carry any of them."""
        return [self.sid, *self.previous_sids]

    @property
    def can_continue(self) -> bool:
        """A re-authentication may continue this session under a new id: it has had fewer
        than :data:`MAX_CONTINUATIONS` ids. Past that, it ends like any replaced session
        (with the logout fan-out) and a fresh one starts, so that no session carries an
        ever longer list of ids, nor its applications one logout token per id."""
        return len(self.previous_sids) < MAX_CONTINUATIONS


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
_member_codec = msgspec.json.Encoder()
_member_decoder = msgspec.json.Decoder(tuple[str, str])
#: The member of ``session-apps:<sid>`` whose score is the session's last activity.
_SEEN = "~seen"

# KEYS: pairs of (session, session-apps); ARGV: ttl, the ~seen member, then per pair: now
# (ms), member ("" for none). EXPIRE answers 0 for a key that is gone: an ended session is
# left alone. GT: the latest moment stays, whichever touch arrives last.
_TOUCH = """
for i = 1, #KEYS / 2 do
  local session, apps = KEYS[2 * i - 1], KEYS[2 * i]
  local now, member = ARGV[2 * i + 1], ARGV[2 * i + 2]
  if redis.call('EXPIRE', session, ARGV[1]) == 1 then
    if member ~= '' then redis.call('ZADD', apps, 'NX', now, member) end
    redis.call('ZADD', apps, 'GT', now, ARGV[2])
    redis.call('EXPIRE', apps, ARGV[1])
  end
end
return 0
"""


@dataclass(frozen=True)
class _Touch:
    session_key: str
    apps_key: str
    moment_ms: int
    member: bytes


# KEYS: old session, old apps, new session, new apps, the person's index.
# ARGV: ttl, index ttl, new JSON (continued), new JSON (fresh), new sid, old sid, now (ms),
# then members to add (an older session's JSON clients). Answers 1 when it took over.
_CONTINUE = """
local took_over = redis.call('DEL', KEYS[1]) == 1
if took_over then
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('RENAME', KEYS[2], KEYS[4]) end
  for i = 8, #ARGV do redis.call('ZADD', KEYS[4], 'NX', ARGV[7], ARGV[i]) end
  redis.call('EXPIRE', KEYS[4], ARGV[1])
  redis.call('SREM', KEYS[5], ARGV[6])
  redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[1])
else
  redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[1])
end
redis.call('SADD', KEYS[5], ARGV[5])
redis.call('EXPIRE', KEYS[5], ARGV[2])
return took_over and 1 or 0
"""
_challenge_decoder = msgspec.json.Decoder(Challenge)


def new_session_id() -> str:
    return secrets.token_urlsafe(32)


class SessionStore:
    """Repository of sessions and challenges in Redis, every key under ``prefix``."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix
        self._batch = RedisBatch(redis)
        self._touch_script = redis.register_script(_TOUCH)
        # The touches of one loop turn (a busy authorize endpoint issues many codes at
        # once) go to Redis as one script call.
        self._touches: TurnBatch[_Touch, None] = TurnBatch(self._send_touches)
        self._continue_script = redis.register_script(_CONTINUE)

    def _session_key(self, sid: str) -> str:
        return f"{self.prefix}session:{sid}"

    def _apps_key(self, sid: str) -> str:
        return f"{self.prefix}session-apps:{sid}"

    def _index_key(self, user_id: str) -> str:
        return f"{self.prefix}user-sessions:{user_id}"

    def _challenge_key(self, challenge_id: str) -> str:
        return f"{self.prefix}challenge:{challenge_id}"

    def _confirmation_key(self, sid: str) -> str:
        return f"{self.prefix}logout-confirm:{sid}"

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
        continues: BrowserSession | None = None,
    ) -> tuple[str, BrowserSession]:
        """Start a session; return (cookie value, session). Atomic with its index entry.

        ``continues``: the same person's session this sign-in re-authenticates; when it is
        still live, the new session takes over its applications and it ends without a
        logout (see the module text). When it ended meanwhile, a fresh session starts."""
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
        if continues is not None and continues.user_id == user_id:
            return session_id, await self._continue(record, continues, moment)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(
                self._session_key(record.sid),
                _session_codec.encode(record),
                ex=SESSION_IDLE_SECONDS,
            )
            pipe.sadd(self._index_key(record.user_id), record.sid)
            pipe.expire(self._index_key(record.user_id), SESSION_IDLE_SECONDS * 7)
            await pipe.execute()
        return session_id, record

    async def _continue(
        self, record: BrowserSession, old: BrowserSession, moment: int
    ) -> BrowserSession:
        continued = msgspec.structs.replace(record, previous_sids=[*old.previous_sids, old.sid])
        # An older session's JSON held its clients: they become members too.
        legacy = [_member_codec.encode((client_id, old.sid)) for client_id in old.clients]
        took_over = await self._continue_script(
            keys=[
                self._session_key(old.sid),
                self._apps_key(old.sid),
                self._session_key(record.sid),
                self._apps_key(record.sid),
                self._index_key(record.user_id),
            ],
            args=[
                SESSION_IDLE_SECONDS,
                SESSION_IDLE_SECONDS * 7,
                _session_codec.encode(continued),
                _session_codec.encode(record),
                record.sid,
                old.sid,
                moment * 1000,
                *legacy,
            ],
        )
        return continued if took_over else record

    async def get_session(self, session_id: str | None) -> BrowserSession | None:
        """The live session a cookie value names, or None (absent, expired, garbage).

        One batched ``GET`` of the JSON (``/oauth2/authorize`` asks this on every call):
        ``clients`` holds only what an older session's JSON recorded. Ask
        :meth:`with_applications` for the applications."""
        if not session_id or len(session_id) > 100:
            return None
        raw = await self._batch.get(self._session_key(session_sid(session_id)))
        return _session_decoder.decode(raw) if raw else None

    async def get_session_by_sid(self, sid: str) -> BrowserSession | None:
        """The live session ``sid`` with its applications, or None."""
        raw = await self._batch.get(self._session_key(sid))
        return await self.with_applications(_session_decoder.decode(raw)) if raw else None

    async def with_applications(self, record: BrowserSession) -> BrowserSession:
        """``record`` with the applications reached and the last activity, as stored now."""
        entries = cast(
            "list[tuple[bytes | str, float]]",
            await self.redis.zrange(self._apps_key(record.sid), 0, -1, withscores=True),
        )
        clients = list(record.clients)  # an older session's JSON recorded them here
        given: dict[str, list[str]] = {c: list(s) for c, s in record.client_sids.items()}
        last_seen = record.last_seen
        for raw, score in entries:
            member = raw.decode() if isinstance(raw, bytes) else raw
            if member == _SEEN:
                last_seen = max(last_seen, int(score) // 1000)
                continue
            client_id, sid = _member_decoder.decode(member)
            if client_id not in clients:
                clients.append(client_id)
            if sid not in given.setdefault(client_id, []):
                given[client_id].append(sid)
        client_sids = {c: s for c, s in given.items() if s and s != [record.sid]}
        return msgspec.structs.replace(
            record, clients=clients, client_sids=client_sids, last_seen=last_seen
        )

    async def touch(
        self, record: BrowserSession, *, client_id: str | None = None, now: int | None = None
    ) -> None:
        """Record activity, and the client reached (spec §6: recipients of logout), in one
        atomic script that does nothing once the session has ended (a late touch never
        brings an ended session back). ``record`` is updated in memory as well."""
        moment_ms = int(time.time() * 1000) if now is None else now * 1000
        record.last_seen = moment_ms // 1000
        member = b""
        if client_id:
            member = _member_codec.encode((client_id, record.sid))
            if client_id not in record.clients:
                record.clients.append(client_id)
        touch = _Touch(self._session_key(record.sid), self._apps_key(record.sid), moment_ms, member)
        await self._touches.submit(touch)

    async def _send_touches(self, touches: list[_Touch]) -> list[None]:
        keys: list[str] = []
        args: list[str | int | bytes] = [SESSION_IDLE_SECONDS, _SEEN]
        for touch in touches:
            keys += [touch.session_key, touch.apps_key]
            args += [touch.moment_ms, touch.member]
        await self._touch_script(keys=keys, args=args)
        return [None] * len(touches)

    async def list_sessions(self, user_id: str) -> list[BrowserSession]:
        """Live sessions of a person, with their applications; index entries of expired
        sessions are pruned."""
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
            pipe.delete(self._apps_key(record.sid))
            pipe.srem(self._index_key(record.user_id), record.sid)
            deleted, _, _ = await pipe.execute()
        return bool(deleted)

    async def forget_sessions(self, records: Sequence[BrowserSession]) -> None:
        """Delete these sessions and their index entries (idempotent). Called once their
        end is committed in the database (:mod:`idp_common.usecases.session_end`)."""
        if not records:
            return
        async with self.redis.pipeline(transaction=True) as pipe:
            for record in records:
                pipe.delete(
                    self._session_key(record.sid),
                    self._apps_key(record.sid),
                    self._confirmation_key(record.sid),
                )
                pipe.srem(self._index_key(record.user_id), record.sid)
            await pipe.execute()

    # --- the logout confirmation ---------------------------------------------------------
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
            _session_codec.encode(challenge),
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
