"""Build records directly in a stack's database and Redis, for tests of the flows.

Tests that are not about the administration API create clients and people here, through
the same models and repositories the services use, and read rows back.
"""

from __future__ import annotations

import hashlib
import secrets
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

import msgspec
from redis.asyncio import Redis
from sqlalchemy import select

from idp_common.crypto.passwords import hash_password
from idp_common.state import session_keys
from idp_common.state.sessions import SESSION_IDLE_SECONDS, BrowserSession, SessionStore
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import (
    Client,
    ClientScope,
    ClientSecret,
    PasswordCredential,
    Scope,
    User,
    UserScope,
)
from idp_common.storage.repos.consents import grant_consent
from idp_common.storage.repos.refresh_tokens import issue_refresh_token
from tests.harness import infra
from tests.harness.pkce import pkce_challenge, pkce_pair
from tests.harness.rows import backchannel_attempts, query
from tests.harness.stack import Stack

# The PKCE helpers and the row readers live in their own modules; importers keep these names.
__all__ = [
    "TestClient",
    "TestUser",
    "backchannel_attempts",
    "create_browser_session",
    "create_client",
    "create_user",
    "give_consent",
    "issue_session_refresh_token",
    "pkce_challenge",
    "pkce_pair",
    "query",
    "session_exists",
]


@dataclass
class TestClient:
    client_id: str
    secret: str | None
    redirect_uri: str
    post_logout_redirect_uri: str
    scopes: list[str] = field(default_factory=list)


@dataclass
class TestUser:
    __test__ = False  # a record, not a test class for pytest to collect

    id: str
    email: str
    password: str


async def _create_client(
    stack: Stack,
    *,
    public: bool,
    scopes: list[str],
    skip_consent: bool,
    grant_types: list[str],
    backchannel_logout_uri: str | None,
    redirect_uri: str,
) -> TestClient:
    client_id = f"app-{uuid.uuid4().hex[:10]}"
    secret = None if public else secrets.token_urlsafe(32)
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            client = Client(
                client_id=client_id,
                name=f"Test app {client_id}",
                type="public" if public else "confidential",
                redirect_uris=[redirect_uri],
                post_logout_redirect_uris=[redirect_uri + "/bye"],
                grant_types=grant_types,
                skip_consent=skip_consent,
                backchannel_logout_uri=backchannel_logout_uri,
            )
            db.add(client)
            await db.flush()
            if secret is not None:
                db.add(
                    ClientSecret(
                        client_pk=client.id, digest=hashlib.sha256(secret.encode()).digest()
                    )
                )
            for scope_id in await db.scalars(select(Scope.id).where(Scope.value.in_(scopes))):
                db.add(ClientScope(client_pk=client.id, scope_id=scope_id))
    finally:
        await engine.dispose()
    return TestClient(client_id, secret, redirect_uri, redirect_uri + "/bye", scopes)


def create_client(
    stack: Stack,
    *,
    public: bool = False,
    scopes: tuple[str, ...] = ("openid", "profile", "email", "offline_access"),
    skip_consent: bool = False,
    grant_types: tuple[str, ...] = ("authorization_code", "refresh_token"),
    backchannel_logout_uri: str | None = None,
    redirect_uri: str = "http://127.0.0.1:9/cb",
) -> TestClient:
    return infra.run(
        _create_client(
            stack,
            public=public,
            scopes=list(scopes),
            skip_consent=skip_consent,
            grant_types=list(grant_types),
            backchannel_logout_uri=backchannel_logout_uri,
            redirect_uri=redirect_uri,
        )
    )


async def _create_user(stack: Stack, password: str, scopes: list[str]) -> TestUser:
    email = f"person-{uuid.uuid4().hex[:10]}@example.com"
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            user = User(
                email=email,
                username=email.split("@", maxsplit=1)[0],
                display_name="Test Person",
                email_verified=True,
            )
            db.add(user)
            await db.flush()
            db.add(PasswordCredential(user_id=user.id, hash=hash_password(password)))
            for scope_id in await db.scalars(select(Scope.id).where(Scope.value.in_(scopes))):
                db.add(UserScope(user_id=user.id, scope_id=scope_id))
            user_id = str(user.id)
    finally:
        await engine.dispose()
    return TestUser(user_id, email, password)


def create_user(
    stack: Stack,
    *,
    password: str = "correct horse battery staple",
    scopes: tuple[str, ...] = (),
) -> TestUser:
    return infra.run(_create_user(stack, password, list(scopes)))


async def _create_session(stack: Stack, user_id: str, auth_time: int) -> tuple[str, BrowserSession]:
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    try:
        store = SessionStore(redis, stack.env["SVC_REDIS_PREFIX"])
        return await store.create_session(
            user_id=user_id,
            auth_time=auth_time,
            amr=["pwd"],
            acr="urn:idp:acr:1fa",
            ip="127.0.0.1",
            user_agent="tests",
        )
    finally:
        await redis.aclose()


def create_browser_session(
    stack: Stack, user_id: str, *, auth_time: int | None = None
) -> tuple[str, BrowserSession]:
    """A signed-in browser session as the sign-in API makes it; returns (cookie, session)."""
    return infra.run(_create_session(stack, user_id, auth_time or int(time.time())))


async def _stand_session(stack: Stack, sid: str, user_id: str, auth_time: int) -> None:
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    try:
        record = BrowserSession(
            sid=sid,
            user_id=user_id,
            auth_time=auth_time,
            amr=["pwd"],
            acr="urn:idp:acr:1fa",
            created_at=auth_time,
            last_seen=int(time.time()),
        )
        key = session_keys.session_key(stack.env["SVC_REDIS_PREFIX"], sid)
        await redis.set(key, msgspec.json.encode(record), ex=SESSION_IDLE_SECONDS, nx=True)
    finally:
        await redis.aclose()


def stand_session(stack: Stack, sid: str, user_id: str, *, auth_time: int | None = None) -> None:
    """A live browser session under ``sid`` (left as it is when one lives there already), for
    a code or token a test writes directly: every token about a person stands on the
    session it was issued in."""
    infra.run(_stand_session(stack, sid, user_id, auth_time or int(time.time())))


async def _issue_refresh_token(stack: Stack, client_id: str, user_id: str, sid: str) -> str:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            client_pk = (
                await db.execute(select(Client.id).where(Client.client_id == client_id))
            ).scalar_one()
            return await issue_refresh_token(
                db,
                family_id=uuid.uuid4(),
                grant_id=None,
                parent_id=None,
                client_pk=client_pk,
                user_id=uuid.UUID(user_id),
                scope="openid offline_access",
                session_sid=sid,
                auth_time=datetime.now(UTC),
                acr="urn:idp:acr:1fa",
                amr=["pwd"],
                now=datetime.now(UTC),
            )
    finally:
        await engine.dispose()


def issue_session_refresh_token(stack: Stack, client_id: str, user_id: str, sid: str) -> str:
    """A refresh token issued in browser session ``sid``, as the code exchange makes one."""
    return infra.run(_issue_refresh_token(stack, client_id, user_id, sid))


def session_exists(stack: Stack, sid: str) -> bool:
    async def check() -> bool:
        redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
        try:
            return bool(await redis.exists(f"{stack.env['SVC_REDIS_PREFIX']}session:{sid}"))
        finally:
            await redis.aclose()

    return infra.run(check())


async def _grant_consent(stack: Stack, client_id: str, user_id: str, scopes: list[str]) -> None:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine).begin() as db:
            client_pk = (
                await db.execute(select(Client.id).where(Client.client_id == client_id))
            ).scalar_one()
            await grant_consent(db, uuid.UUID(user_id), client_pk, scopes)
    finally:
        await engine.dispose()


def give_consent(stack: Stack, client_id: str, user_id: str, scopes: list[str]) -> None:
    """Remember that the person approved these scopes for the client (a connection)."""
    infra.run(_grant_consent(stack, client_id, user_id, scopes))
