"""Whether a validated access token still stands: the one check of the provider's own
API (the bearer guard of ``/admin/*``, ``/entity/*``, ``/scim/v2/*``), userinfo,
introspection and the token exchange's subject token (docs/security.md "Tokens end when
what they stand for ends").

A token stands while everything it was issued on stands:

- its ``jti`` is not on the revocation list (:mod:`idp_common.state.revocation`);
- the browser session it was issued in (``sid``) still exists, whatever ended it: logout,
  the person or an administrator, a password change, a credential removed elsewhere, idle
  expiry (:mod:`idp_common.state.session_standing`);
- the person it speaks for exists and is not disabled; a token about the person issued
  without a session (none is any more) must be younger than their last credential change;
- the client it was issued to exists, is not disabled, and still holds every scope of the
  token (an exchanged token, ``act``, holds its target APIs' scopes, not its client's).

Cost. The Redis part is one ``MGET`` per event-loop turn, shared by every request of the
turn and with the application's other plain reads: the revocation entry, the session, and
the ``users`` and ``clients`` change stamps (:mod:`idp_common.state.change_stamp`). The
person's and the client's facts come from PostgreSQL once and are kept by each worker,
the person's for :data:`PERSON_SECONDS`, the client's for :data:`CLIENT_SECONDS`; every
worker forgets all of them as soon as the matching stamp moves, which every write of a
person's state or of a client bumps after its commit. So a token that stands costs one
shared Redis round trip and no query, and a change is seen on the next request by every
replica. Failing closed: a Redis or database error propagates (the caller answers 503),
an unreadable fact never counts as standing.
"""

from __future__ import annotations

import asyncio
import enum
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Final, Generic, NamedTuple, TypeVar

from idp_common.state.change_stamp import CLIENTS, USERS, StampWatch
from idp_common.state.revocation import RevocationList
from idp_common.storage.repos.standing import (
    ClientStanding,
    PersonStanding,
    client_standing,
    person_standing,
)
from idp_common.web.resources import Resources

__all__ = ["Standing", "TokenStanding"]

#: How long a worker keeps a person's facts without a stamp change (a missed bump).
PERSON_SECONDS: Final = 5.0
#: How long a worker keeps a client's facts without a stamp change (a missed bump).
CLIENT_SECONDS: Final = 60.0
_CAPACITY: Final = 10_000
#: Scope strings a kept client remembers its verdict on.
_SCOPE_STRINGS: Final = 64

K = TypeVar("K")
V = TypeVar("V")


class Standing(NamedTuple):
    """The verdict: ``refusal`` (None: the token stands), the JSON of the live session it
    stands on (recent sign-in reads it) and the person's last credential change."""

    refusal: str | None
    session: bytes | None = None
    credentials_changed_at: float | None = None


class _Unknown(enum.Enum):
    UNKNOWN = enum.auto()


_UNKNOWN: Final = _Unknown.UNKNOWN


class _Facts(Generic[K, V]):
    """A worker's copy of facts read from PostgreSQL, forgotten when their stamp moves.
    Concurrent misses of one key share one load; a load under way when the stamp moves is
    answered but not kept (it may have read the state from before the change)."""

    def __init__(self, stamp: StampWatch, seconds: float) -> None:
        self.stamp = stamp
        self._seconds = seconds
        self._entries: dict[K, tuple[float, V]] = {}
        self._loading: dict[K, asyncio.Task[V]] = {}
        self._epoch = 0

    def observe(self, stamp_value: bytes | None) -> None:
        if self.stamp.observe(stamp_value):
            self._entries.clear()
            self._loading.clear()
            self._epoch += 1

    def kept(self, key: K) -> V | _Unknown:
        """The worker's copy, while it lasts (no coroutine: the path of nearly every
        request), else :data:`_UNKNOWN`."""
        entry = self._entries.get(key)
        if entry is not None and entry[0] > time.monotonic():
            return entry[1]
        return _UNKNOWN

    async def get(self, key: K, load: Callable[[], Awaitable[V]]) -> V:
        """The worker's copy, else one load shared by every caller that misses meanwhile."""
        kept = self.kept(key)
        if not isinstance(kept, _Unknown):
            return kept
        task = self._loading.get(key)
        if task is None:
            # its own task: a caller that goes away (a client that hung up) does not cancel
            # the load the others wait for
            task = asyncio.ensure_future(self._load(key, load, self._epoch))
            self._loading[key] = task
        return await asyncio.shield(task)

    async def _load(self, key: K, load: Callable[[], Awaitable[V]], epoch: int) -> V:
        try:
            value = await load()
        finally:
            if self._loading.get(key) is asyncio.current_task():
                del self._loading[key]
        if epoch == self._epoch:
            if len(self._entries) >= _CAPACITY:
                self._entries.clear()
            self._entries[key] = (time.monotonic() + self._seconds, value)
        return value


class _Client:
    """A client's facts as a worker keeps them, with the scope strings of its tokens
    already compared with its scopes (a client's tokens carry few distinct ones)."""

    __slots__ = ("_fits", "disabled", "scopes")

    def __init__(self, standing: ClientStanding) -> None:
        self.disabled = standing.disabled
        self.scopes = standing.scopes
        self._fits: dict[str, bool] = {}

    def holds(self, scope: str) -> bool:
        """Whether every scope of the space-separated ``scope`` is still the client's."""
        fits = self._fits.get(scope)
        if fits is None:
            fits = set(scope.split()) <= self.scopes
            if len(self._fits) < _SCOPE_STRINGS:
                self._fits[scope] = fits
        return fits


class TokenStanding:
    """One per application (see the module)."""

    def __init__(self, resources: Resources) -> None:
        prefix = resources.settings.redis_prefix
        reads = resources.reads
        self._resources = resources
        self._reads = reads
        self._revocations = RevocationList(resources.redis, prefix, reads)
        self._sessions = resources.session_standing
        # keyed by the token's ``sub`` as it is, so that a kept person costs no UUID parse
        self._people: _Facts[str, PersonStanding | None] = _Facts(
            StampWatch(reads, prefix, USERS), PERSON_SECONDS
        )
        self._clients: _Facts[str, _Client | None] = _Facts(
            StampWatch(reads, prefix, CLIENTS), CLIENT_SECONDS
        )

    async def check(self, claims: dict[str, Any]) -> Standing:
        """The verdict on a token whose signature, issuer, audience and expiry hold.

        The facts kept by the worker are read without a coroutine: this runs on every
        request of the provider's own API, userinfo and introspection."""
        shape = _shape(claims)
        if isinstance(shape, str):
            return Standing(shape)
        jti, client_id, subject, sid = shape
        revoked, session = await self._read(jti, sid)
        if revoked:
            return Standing("revoked")
        if sid is not None and session is None:
            return Standing("session ended")
        client = self._clients.kept(client_id)
        if client is _UNKNOWN:
            client = await self._clients.get(client_id, lambda: self._load_client(client_id))
        refusal = _client_refusal(client, claims)
        if refusal is not None or subject is None:
            return Standing(refusal)
        person = self._people.kept(subject)
        if person is _UNKNOWN:
            person = await self._people.get(subject, lambda: self._load_person(subject))
        return _person_verdict(person, claims, session)

    async def _read(self, jti: str, sid: str | None) -> tuple[bool, bytes | None]:
        """(revoked, the live session's JSON) from the one shared read; the stamps seen
        on the way make the workers' copies of facts forget what changed."""
        people, clients = self._people, self._clients
        jti_key = self._revocations.jti_key(jti)
        if sid is None:
            values = await self._reads.get_many((jti_key, people.stamp.key, clients.stamp.key))
            session = None
        else:
            session_key = self._sessions.session_key(sid)
            values = await self._reads.get_many(
                (jti_key, people.stamp.key, clients.stamp.key, session_key)
            )
            session = values[3]
            if session is None:  # a sid replaced by a re-authentication?
                session = await self._sessions.follow(sid, None)
        people.observe(values[1])
        clients.observe(values[2])
        return values[0] is not None, session

    async def _load_person(self, subject: str) -> PersonStanding | None:
        """The person ``subject`` names, None when it is not a person's id (then only the
        client and the session are checked, as for a client's own token)."""
        try:
            person = uuid.UUID(subject)
        except ValueError:
            return None
        async with self._resources.hot.connection() as conn:
            return await person_standing(conn, person)

    async def _load_client(self, client_id: str) -> _Client | None:
        async with self._resources.hot.connection() as conn:
            standing = await client_standing(conn, client_id)
        return None if standing is None else _Client(standing)


def _shape(claims: dict[str, Any]) -> str | tuple[str, str, str | None, str | None]:
    """(jti, client_id, the ``sub`` of a person's token, the sid it stands on), or why
    not. A client-credentials token's ``sub`` is its client's own id: no person."""
    jti, client_id, subject = claims.get("jti"), claims.get("client_id"), claims.get("sub")
    if not isinstance(jti, str) or not jti:
        return "without jti"
    if not isinstance(client_id, str) or not client_id:
        return "without client_id"
    if not isinstance(subject, str) or not subject or subject == client_id:
        return jti, client_id, None, None
    sid = claims.get("sid")
    return jti, client_id, subject, sid if isinstance(sid, str) and sid else None


def _client_refusal(client: _Client | None, claims: dict[str, Any]) -> str | None:
    if client is None:
        return "client gone"
    if client.disabled:
        return "client disabled"
    # an exchanged token (``act``) holds its target APIs' scopes, not its client's
    if "act" not in claims and not client.holds(str(claims.get("scope", ""))):
        return "scope withdrawn from the client"
    return None


def _person_verdict(
    person: PersonStanding | None, claims: dict[str, Any], session: bytes | None
) -> Standing:
    if person is None:  # ``sub`` names no person: nothing more to check
        return Standing(None, session)
    if not person.active:
        return Standing("subject inactive")
    changed = person.credentials_changed_at
    # whole seconds, as ``iat`` is
    if session is None and changed is not None and _issued_at(claims) < math.floor(changed):
        return Standing("issued before the credentials changed")
    return Standing(None, session, changed)


def _issued_at(claims: dict[str, Any]) -> float:
    iat = claims.get("iat")
    return float(iat) if isinstance(iat, int | float) and not isinstance(iat, bool) else 0.0
