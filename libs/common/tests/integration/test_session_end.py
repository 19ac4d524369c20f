"""Ending sessions (``idp_common.usecases.session_end``) against the local Postgres and Redis: the
database first, Redis once the transaction committed, one outbox event per session."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from redis.asyncio import Redis
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from idp_common.state.sessions import BrowserSession, SessionStore
from idp_common.storage.db.engine import create_session_factory
from idp_common.storage.db.models import Client, OutboxEvent, RefreshToken, User
from idp_common.storage.repos.refresh_tokens import issue_refresh_token
from idp_common.usecases.session_end import end_sessions

pytestmark = pytest.mark.integration


@pytest.fixture
def sessions(migrated_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_factory(migrated_engine)


async def person_with_token(
    sessions: async_sessionmaker[AsyncSession], store: SessionStore
) -> BrowserSession:
    """A person, a browser session, and a refresh token issued in it."""
    async with sessions.begin() as db:
        user = User(email=f"{uuid.uuid4().hex}@example.com", username=uuid.uuid4().hex)
        client = Client(
            client_id=uuid.uuid4().hex,
            name="app",
            type="public",
            grant_types=["authorization_code"],
        )
        db.add_all([user, client])
        await db.flush()
        _, record = await store.create_session(
            user_id=str(user.id),
            auth_time=int(time.time()),
            amr=["pwd"],
            acr="urn:idp:acr:1fa",
            ip=None,
            user_agent=None,
        )
        await issue_refresh_token(
            db,
            family_id=uuid.uuid4(),
            grant_id=None,
            parent_id=None,
            client_pk=client.id,
            user_id=user.id,
            scope="openid offline_access",
            session_sid=record.sid,
            auth_time=datetime.now(UTC),
            acr="urn:idp:acr:1fa",
            amr=["pwd"],
            now=datetime.now(UTC),
        )
    return record


@pytest.fixture
def store(redis_client: Redis, prefix: str) -> SessionStore:
    return SessionStore(redis_client, prefix)


@pytest.fixture
async def record(sessions: async_sessionmaker[AsyncSession], store: SessionStore) -> BrowserSession:
    """A person's browser session with a refresh token issued in it."""
    return await person_with_token(sessions, store)


async def counts(sessions: async_sessionmaker[AsyncSession], sid: str) -> tuple[int, int]:
    """(outbox events of the session, its live refresh tokens)."""
    async with sessions() as db:
        events = await db.scalar(
            select(func.count())
            .select_from(OutboxEvent)
            .where(OutboxEvent.payload["sid"].astext == sid)
        )
        live = await db.scalar(
            select(func.count())
            .select_from(RefreshToken)
            .where(RefreshToken.session_sid == sid, RefreshToken.revoked_at.is_(None))
        )
    return int(events or 0), int(live or 0)


async def end(
    sessions: async_sessionmaker[AsyncSession],
    store: SessionStore,
    records: Sequence[BrowserSession],
) -> int:
    async with sessions.begin() as db:
        ended = await end_sessions(db, store, records, reason="logout", nats_prefix="t")
    return ended.sessions


async def test_redis_is_left_alone_until_the_transaction_commits(
    sessions: async_sessionmaker[AsyncSession],
    store: SessionStore,
    record: BrowserSession,
) -> None:
    async with sessions() as db:
        await end_sessions(db, store, [record], reason="logout", nats_prefix="t")
        assert await store.get_session_by_sid(record.sid) is not None  # not committed yet
        await db.rollback()
    assert await store.get_session_by_sid(record.sid) is not None
    assert await counts(sessions, record.sid) == (0, 1)

    async with sessions() as db:
        await end_sessions(db, store, [record], reason="logout", nats_prefix="t")
        await db.commit()
        assert await store.get_session_by_sid(record.sid) is None  # gone before commit returned
    assert await counts(sessions, record.sid) == (1, 0)


async def test_a_failed_transaction_leaves_everything_for_the_retry(
    sessions: async_sessionmaker[AsyncSession],
    store: SessionStore,
    record: BrowserSession,
) -> None:
    with pytest.raises(RuntimeError):
        async with sessions.begin() as db:
            await end_sessions(db, store, [record], reason="logout", nats_prefix="t")
            raise RuntimeError("the caller's next step failed")
    assert await store.get_session_by_sid(record.sid) is not None
    assert await counts(sessions, record.sid) == (0, 1)
    assert await end(sessions, store, [record]) == 1
    assert await counts(sessions, record.sid) == (1, 0)
    assert await store.get_session_by_sid(record.sid) is None


async def test_a_retry_after_the_redis_step_failed_writes_no_second_event(
    sessions: async_sessionmaker[AsyncSession],
    store: SessionStore,
    record: BrowserSession,
    redis_client: Redis,
    prefix: str,
) -> None:
    """The commit went through, the deletion from Redis did not: the session is still
    there; ending it again deletes it and announces nothing twice."""
    key = f"{prefix}session:{record.sid}"
    stored = await redis_client.get(key)
    assert await end(sessions, store, [record]) == 1
    await redis_client.set(key, stored or b"", ex=60)  # as if the delete had failed
    assert await end(sessions, store, [record]) == 0
    assert await counts(sessions, record.sid) == (1, 0)
    assert await redis_client.exists(key) == 0


async def test_a_transaction_rolled_back_drops_its_deletions(
    sessions: async_sessionmaker[AsyncSession],
    store: SessionStore,
    record: BrowserSession,
) -> None:
    """Deletions waiting on a session whose transaction failed are dropped: a later
    transaction of the same session object does not delete them."""
    async with sessions() as db:
        await end_sessions(db, store, [record], reason="logout", nats_prefix="t")
        with pytest.raises(Exception, match="division"):
            await db.execute(text("SELECT 1 / 0"))
        await db.rollback()
        await db.execute(text("SELECT 1"))
        await db.commit()
    assert await store.get_session_by_sid(record.sid) is not None
    assert await counts(sessions, record.sid) == (0, 1)


async def test_a_session_closed_without_commit_drops_its_deletions(
    sessions: async_sessionmaker[AsyncSession],
    store: SessionStore,
    record: BrowserSession,
) -> None:
    db = sessions()
    await end_sessions(db, store, [record], reason="logout", nats_prefix="t")
    await db.close()  # the request gave up: no commit, no rollback called
    await db.execute(text("SELECT 1"))  # the same object used again
    await db.commit()
    await db.close()
    assert await store.get_session_by_sid(record.sid) is not None
    assert await counts(sessions, record.sid) == (0, 1)
