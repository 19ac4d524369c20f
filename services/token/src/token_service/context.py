"""What every protocol handler of the token service reaches: settings, keys, storage,
the revocation list, the per-address bound on sign-in challenges, the coalescing of
repeated failures in the audit log and the in-process caches. One :class:`TokenContext`
per worker, made on first use and kept in the app state; :class:`GrantDeps` adds the
request's moment and caller address (docs/style.md §2: time is passed in).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from litestar.connection import ASGIConnection

from idp_common.config import Settings
from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, verify_signature
from idp_common.crypto.keys import KeySet
from idp_common.state.challenge_quota import ChallengeQuota
from idp_common.state.change_stamp import CLIENTS, StampWatch
from idp_common.state.redis_batch import RedisBatch
from idp_common.state.revocation import RevocationList
from idp_common.storage.repos.clients import ClientRecord, get_client
from idp_common.web.resources import Resources
from idp_common.web.token_standing import TokenStanding
from token_service.caches import TTLCache
from token_service.client_keys import ClientKeys
from token_service.issued_counts import IssuedCounts
from token_service.repeated_failures import RepeatedFailures
from token_service.repos.people import UserClaims, load_person, scope_audiences
from token_service.signing import TokenAudiences, token_audiences

#: Seconds a worker reuses a client record, a person's claims, a scope→API mapping.
CLIENT_CACHE_SECONDS: Final = 5.0
#: An access token whose signature a worker checked is not checked again for this long
#: (its claims still are, every time); the bound is memory, not correctness.
VERIFIED_CACHE_SECONDS: Final = 600.0
VERIFIED_CACHE_ENTRIES: Final = 8192
USER_CACHE_SECONDS: Final = 5.0
AUDIENCE_CACHE_SECONDS: Final = 30.0
_STATE_KEY: Final = "token_context"
#: The app state's :class:`IssuedCounts` (made and written by ``token_service.app``).
ISSUED_COUNTS_KEY: Final = "issued_counts"


@dataclass
class TokenContext:
    resources: Resources
    revocations: RevocationList
    client_stamp: StampWatch
    challenge_quota: ChallengeQuota
    repeated_failures: RepeatedFailures
    clients: TTLCache[str, ClientRecord] = field(
        default_factory=lambda: TTLCache(CLIENT_CACHE_SECONDS)
    )
    # keyed by the person's id as text, the ``sub`` of their tokens: a hit parses nothing
    users: TTLCache[str, UserClaims] = field(
        default_factory=lambda: TTLCache(USER_CACHE_SECONDS, max_entries=16384)
    )
    audiences: TTLCache[tuple[str, ...], TokenAudiences] = field(
        default_factory=lambda: TTLCache(AUDIENCE_CACHE_SECONDS)
    )
    verified: TTLCache[str, dict[str, Any]] = field(
        default_factory=lambda: TTLCache(VERIFIED_CACHE_SECONDS, VERIFIED_CACHE_ENTRIES)
    )
    verified_with: KeySet | None = None  # the key set ``verified`` was filled with
    # client_id → (its userinfo_signed_response_alg,): userinfo's one extra read per request
    userinfo_algs: TTLCache[str, tuple[str | None]] = field(
        default_factory=lambda: TTLCache(CLIENT_CACHE_SECONDS)
    )
    # private_key_jwt clients' key sets: inline jwks parsed, jwks_uri fetched
    client_keys: ClientKeys = field(default_factory=ClientKeys)
    # tokens issued per (grant_type, client_id), written to the audit log in the background
    issued: IssuedCounts = field(default_factory=IssuedCounts)
    # whether a presented access token still stands (userinfo, introspection, exchange)
    standing: TokenStanding | None = None

    @property
    def token_standing(self) -> TokenStanding:
        if self.standing is None:
            self.standing = TokenStanding(self.resources)
        return self.standing

    @property
    def settings(self) -> Settings:
        return self.resources.settings

    @property
    def keys(self) -> KeySet:
        return self.resources.keys

    def access_token_claims(self, token: str) -> dict[str, Any]:
        """The claims of an access token whose shape, ``kid``, signature and ``typ``
        (``at+jwt``) hold, checked once per worker and token (the answer depends only on
        the token and the key set). Raises ``InvalidToken``. The caller still checks the
        claims (``check_claims``) and must not change the returned dict."""
        keys = self.keys
        if keys is not self.verified_with:  # re-read: a removed key must stop verifying now
            self.verified.clear()
            self.verified_with = keys
        claims = self.verified.get(token)
        if claims is None:
            claims = verify_signature(token, keys, typ=TYP_ACCESS_TOKEN)
            self.verified.put(token, claims)
        return claims

    async def get_client(self, client_id: str) -> ClientRecord | None:
        """The client, from the cache or one load (two indexed queries). The cache is
        dropped when an administrator changed a client (``idp_common.state.change_stamp``).
        An id with NUL names no client (PostgreSQL text cannot hold it; asyncpg raises).

        A disabled client is None here, like one that does not exist: every endpoint that
        names a client reads it through this method (client authentication at the token,
        PAR, introspection, revocation and device endpoints, public clients included, and
        ``/oauth2/authorize``), so each refuses it as unknown and none reveals it exists.
        The record stays cached, so a disabled client's requests cost no query."""
        if "\x00" in client_id:
            return None
        if await self.client_stamp.changed():
            self.clients.clear()

        async def load() -> ClientRecord | None:
            async with self.resources.sessions() as session:
                return await get_client(session, client_id)

        client = await self.clients.get_or_load(client_id, load)
        return None if client is None or client.disabled else client

    async def userinfo_alg(self, client_id: str) -> str | None:
        """The client's ``userinfo_signed_response_alg`` (None: plain JSON, or the client
        is gone); a dict lookup while cached (``CLIENT_CACHE_SECONDS``, so a change
        reaches userinfo that much later)."""
        cached = self.userinfo_algs.get(client_id)
        if cached is not None:
            return cached[0]
        client = await self.get_client(client_id)
        alg = None if client is None else client.userinfo_signed_response_alg
        self.userinfo_algs.put(client_id, (alg,))
        return alg

    async def get_user_claims(self, subject: str) -> UserClaims | None:
        """The person whose id is ``subject`` (their tokens' ``sub``); None when it names
        no person (not an id in its canonical text, or no such person)."""

        async def load() -> UserClaims | None:
            try:
                user_id = uuid.UUID(subject)
            except ValueError:
                return None
            if str(user_id) != subject:
                return None
            async with self.resources.hot.connection() as conn:
                person = await load_person(conn, user_id)
            return None if person is None else person.claims

        return await self.users.get_or_load(subject, load)

    async def audiences_for(self, scopes: list[str]) -> TokenAudiences:
        """Audiences of the APIs owning ``scopes`` (sorted) and the algorithm their access
        tokens are signed with, decided once per cached entry (``token_service.signing``)."""
        key = tuple(sorted(set(scopes)))
        if not key:
            return TokenAudiences()

        async def load() -> TokenAudiences:
            async with self.resources.sessions() as session:
                pairs = await scope_audiences(session, key)
            return token_audiences(pairs, self.settings.api_audience)

        found = await self.audiences.get_or_load(key, load)
        return found or TokenAudiences()


def token_context(connection: ASGIConnection[Any, Any, Any, Any]) -> TokenContext:
    state = connection.app.state
    context: TokenContext | None = state.get(_STATE_KEY)
    if context is None:
        resources: Resources = state.resources
        prefix = resources.settings.redis_prefix
        context = TokenContext(
            resources=resources,
            revocations=RevocationList(resources.redis, prefix, resources.reads),
            client_stamp=StampWatch(RedisBatch(resources.redis), prefix, CLIENTS),
            challenge_quota=ChallengeQuota(resources.redis, prefix),
            repeated_failures=RepeatedFailures(resources.redis, prefix),
            issued=state.get(ISSUED_COUNTS_KEY) or IssuedCounts(),
        )
        state[_STATE_KEY] = context
    return context


@dataclass(frozen=True)
class GrantDeps:
    """One request's view: the worker's context, the moment, the caller's address, the
    DPoP key it proved."""

    ctx: TokenContext
    now: int
    ip: str
    #: RFC 9449: the thumbprint of the key of the request's DPoP proof (None: no proof);
    #: the access token issued is bound to it (``cnf.jkt``), and so is a public client's
    #: refresh token.
    dpop_jkt: str | None = None

    @property
    def now_dt(self) -> datetime:
        return datetime.fromtimestamp(self.now, UTC)
