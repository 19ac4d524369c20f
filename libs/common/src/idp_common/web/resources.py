"""The long-lived clients a service holds: database engine and hot-path pool,
Redis, signing keys, limiter.

Created once at start-up by the app factory and reached by handlers through
``request.app.state.resources``. Nothing here connects eagerly: a service starts (and
reports itself degraded) even when Postgres or Redis is down.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from ipaddress import IPv4Network, IPv6Network
from typing import Final

from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from idp_common.config import Settings
from idp_common.crypto.keys import KeySet
from idp_common.events.webhook_events import outbox_events
from idp_common.observability.metrics import count_limit_refusal
from idp_common.passkeys.ceremony import RelyingParty
from idp_common.protocol.caller_address import parse_trusted_networks
from idp_common.state.passkey_ceremonies import PasskeyCeremonies
from idp_common.state.ratelimit import RateLimiter
from idp_common.state.redis_batch import RedisBatch
from idp_common.state.session_standing import SessionStanding
from idp_common.state.sessions import SessionStore
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.hot_pool import HotPool
from idp_common.storage.db.migrate import head_revision, older_revisions
from idp_common.web.key_ring import KeyRing

#: The ORM pool (``SVC_DB_POOL_SIZE`` connections a worker keeps for ORM sessions; the hot
#: statements have their own pool, ``idp_common.storage.db.hot_pool``) takes no overflow: a
#: request finding them all in use waits for one. SQLAlchemy closes an overflow connection
#: as soon as it is returned, so under load most requests would open and close a Postgres
#: connection (a backend fork, a TLS attempt, authentication), which costs far more than
#: the wait.
POOL_OVERFLOW: Final = 0


@dataclass
class Resources:
    settings: Settings
    engine: AsyncEngine
    hot: HotPool
    sessions: async_sessionmaker[AsyncSession]
    redis: Redis
    key_ring: KeyRing
    limiter: RateLimiter
    trusted_networks: tuple[IPv4Network | IPv6Network, ...]
    head_revision: str
    #: The revisions below head: a database at one of them needs ``idp migrate`` first.
    older_revisions: frozenset[str]

    @property
    def keys(self) -> KeySet:
        """The signing keys of this moment: the one place every reader takes them from, so
        that all see the directory re-read (``idp_common.web.key_ring``)."""
        return self.key_ring.current()

    @cached_property
    def reads(self) -> RedisBatch:
        """The application's plain Redis reads: those of one event-loop turn, whoever asks,
        go to Redis as one ``MGET``."""
        return RedisBatch(self.redis)

    @cached_property
    def browser_sessions(self) -> SessionStore:
        """Browser sessions and sign-in challenges (Redis, under the settings' prefix);
        one store per application, so that its reads and writes are batched together."""
        return SessionStore(self.redis, self.settings.redis_prefix, self.reads)

    @cached_property
    def session_standing(self) -> SessionStanding:
        """Whether the session a token was issued in still stands."""
        return SessionStanding(self.redis, self.settings.redis_prefix, self.reads)

    @cached_property
    def passkey_ceremonies(self) -> PasskeyCeremonies:
        """Pending WebAuthn challenges: single use, ``SVC_PASSKEY_CHALLENGE_TTL``."""
        settings = self.settings
        return PasskeyCeremonies(self.redis, settings.redis_prefix, settings.passkey_challenge_ttl)

    @cached_property
    def relying_party(self) -> RelyingParty:
        """This deployment as a WebAuthn relying party: the issuer's host and origin."""
        return RelyingParty.from_settings(self.settings)

    async def aclose(self) -> None:
        await self.redis.aclose()
        await self.hot.aclose()
        await self.engine.dispose()


def open_resources(settings: Settings) -> Resources:
    """Build every client. Reads the key directory now: no key, no start."""
    timeout = settings.dependency_timeout
    engine = create_engine(
        settings.database_url,
        connect_args={"timeout": timeout},
        pool_size=settings.db_pool_size,
        max_overflow=POOL_OVERFLOW,
    )
    redis = Redis.from_url(
        settings.redis_url,
        socket_connect_timeout=timeout,
        socket_timeout=timeout,
        health_check_interval=30,
    )
    return Resources(
        settings=settings,
        engine=engine,
        hot=HotPool(settings.database_url, max_size=settings.db_hot_pool_size, timeout=timeout),
        # audited writes also write their webhook events (docs/webhooks.md "Events")
        sessions=create_session_factory(engine, audit_events=outbox_events(settings.nats_prefix)),
        redis=redis,
        key_ring=KeyRing.open(settings.key_dir, reload_seconds=settings.key_reload_seconds),
        limiter=RateLimiter(redis, settings.redis_prefix, on_refused=count_limit_refusal),
        trusted_networks=parse_trusted_networks(settings.forwarded_allow_ips),
        head_revision=head_revision(),
        older_revisions=frozenset(older_revisions(head_revision())),
    )
