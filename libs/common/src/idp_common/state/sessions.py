"""Browser sessions in Redis (contract §5 "Browser session").

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
activity. Two codes issued at once for two applications each add their own member, so
neither is lost (docs/security.md, attack 7: a read-modify-write of the whole JSON lost one of
them, which then never got its logout token). Readers that need the applications (the
session list, ending a session) read the set; ``/oauth2/authorize`` reads only the JSON.
A session written before the set existed keeps the ``clients`` of its JSON, and readers
add them.

Re-authentication (a step-up, ``prompt=login``, ``max_age``) of the person already signed
in continues the session (docs/security.md, attack 18): a new id and cookie (no fixation), the
same applications. One script renames ``session-apps:<old>`` to ``session-apps:<new>``,
deletes the old session and writes the new one with ``previous_sids``, so no logout is
sent; when the session really ends, each application is told with the sid(s) its ID tokens
carry (the set's members say which), and refresh tokens of every earlier sid are revoked.

Live sessions (the activity dashboard's count, docs/activity-dashboard.md): the sorted
set ``sessions-live`` holds every session's sid scored with the moment (seconds) it expires
if idle; written in the same pipeline or script as the session when it starts, is touched,
continues and ends, and pruned of expired members when counted (:meth:`SessionStore.count_live`:
``ZREMRANGEBYSCORE`` + ``ZCARD``, O(log n) plus the expired ones, never a scan).

The store also keeps sign-in challenges (:mod:`idp_common.state.challenges`) and the
"Sign out?" tokens (:mod:`idp_common.state.logout_confirmations`); its Lua scripts are in
:mod:`idp_common.state.session_scripts`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import cast

import msgspec
from redis.asyncio import Redis

from idp_common.protocol.oidc_core_claims import session_sid
from idp_common.state import session_keys as keys
from idp_common.state.challenges import ChallengeStore
from idp_common.state.logout_confirmations import LogoutConfirmations
from idp_common.state.redis_batch import RedisBatch
from idp_common.state.session_scripts import CONTINUE, TOUCH, Touch
from idp_common.state.turn_batch import TurnBatch

SESSION_IDLE_SECONDS = 24 * 3600
#: Re-authentications one browser session may go through under new ids (see
#: :attr:`BrowserSession.can_continue`).
MAX_CONTINUATIONS = 16


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


_encoder = msgspec.json.Encoder()
_session_decoder = msgspec.json.Decoder(BrowserSession)
_member_decoder = msgspec.json.Decoder(tuple[str, str])
#: The member of ``session-apps:<sid>`` whose score is the session's last activity.
_SEEN = "~seen"


def new_session_id() -> str:
    return secrets.token_urlsafe(32)


class SessionStore(ChallengeStore, LogoutConfirmations):
    """Repository of sessions (and, inherited, challenges and logout confirmations) in
    Redis, every key under ``prefix``."""

    def __init__(self, redis: Redis, prefix: str, reads: RedisBatch | None = None) -> None:
        super().__init__(redis, prefix)
        self._batch = reads or RedisBatch(redis)
        self._touch_script = redis.register_script(TOUCH)
        # The touches of one loop turn (a busy authorize endpoint issues many codes at
        # once) go to Redis as one script call.
        self._touches: TurnBatch[Touch, None] = TurnBatch(self._send_touches)
        self._continue_script = redis.register_script(CONTINUE)

    def _session_key(self, sid: str) -> str:
        return keys.session_key(self.prefix, sid)

    def _apps_key(self, sid: str) -> str:
        return keys.apps_key(self.prefix, sid)

    def _index_key(self, user_id: str) -> str:
        return keys.index_key(self.prefix, user_id)

    @property
    def _live_key(self) -> str:
        return keys.live_key(self.prefix)

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
            json = _encoder.encode(record)
            pipe.set(self._session_key(record.sid), json, ex=SESSION_IDLE_SECONDS)
            pipe.sadd(self._index_key(record.user_id), record.sid)
            pipe.expire(self._index_key(record.user_id), SESSION_IDLE_SECONDS * 7)
            pipe.zadd(self._live_key, {record.sid: moment + SESSION_IDLE_SECONDS})
            await pipe.execute()
        return session_id, record

    async def _continue(
        self, record: BrowserSession, old: BrowserSession, moment: int
    ) -> BrowserSession:
        continued = msgspec.structs.replace(record, previous_sids=[*old.previous_sids, old.sid])
        # An older session's JSON held its clients: they become members too.
        legacy = [_encoder.encode((client_id, old.sid)) for client_id in old.clients]
        took_over = await self._continue_script(
            keys=[
                self._session_key(old.sid),
                self._apps_key(old.sid),
                self._session_key(record.sid),
                self._apps_key(record.sid),
                self._index_key(record.user_id),
                self._live_key,
                # every earlier sid now points at the new one (tokens carry them)
                *(keys.moved_key(self.prefix, sid) for sid in continued.previous_sids),
            ],
            args=[
                SESSION_IDLE_SECONDS,
                SESSION_IDLE_SECONDS * 7,
                _encoder.encode(continued),
                _encoder.encode(record),
                record.sid,
                old.sid,
                moment * 1000,
                keys.MOVED_SID_SECONDS,
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
        """Record activity, and the client reached (contract §6: recipients of logout), in one
        atomic script that does nothing once the session has ended (a late touch never
        brings an ended session back). ``record`` is updated in memory as well."""
        moment_ms = int(time.time() * 1000) if now is None else now * 1000
        record.last_seen = moment_ms // 1000
        member = b""
        if client_id:
            member = _encoder.encode((client_id, record.sid))
            if client_id not in record.clients:
                record.clients.append(client_id)
        touch = Touch(
            self._session_key(record.sid), self._apps_key(record.sid), moment_ms, member, record.sid
        )
        await self._touches.submit(touch)

    async def _send_touches(self, touches: list[Touch]) -> list[None]:
        keys: list[str] = []
        args: list[str | int | bytes] = [SESSION_IDLE_SECONDS, _SEEN]
        for touch in touches:
            keys += [touch.session_key, touch.apps_key]
            args += [touch.moment_ms, touch.member, touch.sid]
        keys.append(self._live_key)
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
            pipe.zrem(self._live_key, record.sid)
            deleted, _, _, _ = await pipe.execute()
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
                    *(keys.moved_key(self.prefix, sid) for sid in record.previous_sids),
                )
                pipe.srem(self._index_key(record.user_id), record.sid)
                pipe.zrem(self._live_key, record.sid)
            await pipe.execute()

    async def count_live(self, now: float | None = None) -> int:
        """How many sessions live now: the expired members of ``sessions-live`` are
        removed, the rest counted (one transaction, no scan)."""
        moment = time.time() if now is None else now
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(self._live_key, "-inf", f"({moment}")
            pipe.zcard(self._live_key)
            _, live = await pipe.execute()
        return int(live)
