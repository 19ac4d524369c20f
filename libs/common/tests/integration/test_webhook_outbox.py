"""The webhook events of audit rows, against a real PostgreSQL (docs/webhooks.md
"Events"): written in the audited change's own transaction, so an event exists only when
its change commits, and announced to a listening relay at that commit."""

from __future__ import annotations

import asyncio
import json
import uuid

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from idp_common.events.webhook_events import outbox_events
from idp_common.storage.db.engine import create_session_factory
from idp_common.storage.db.models import User
from idp_common.storage.repos.audit import AuditEntry, record_audit, write_audit
from idp_common.storage.repos.outbox import OUTBOX_CHANNEL

pytestmark = pytest.mark.integration
PREFIX = "evt-test"


@pytest.fixture
def sessions(migrated_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return create_session_factory(migrated_engine, audit_events=outbox_events(PREFIX))


def created(target: str) -> AuditEntry:
    return AuditEntry(
        action="user.create", status_code=201, actor="admin-1", target_type="user", target=target
    )


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[tuple[str, dict[str, object]]]:
    async with sessions() as db:
        rows = (await db.execute(text("SELECT subject, payload::text FROM event_outbox"))).all()
    return [(subject, json.loads(doc)) for subject, doc in rows]


async def audit_count(sessions: async_sessionmaker[AsyncSession]) -> int:
    async with sessions() as db:
        return int((await db.execute(text("SELECT count(*) FROM audit_events"))).scalar_one())


async def test_a_committed_audit_row_writes_its_event_beside_it(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    person = str(uuid.uuid4())
    async with sessions.begin() as db:
        write_audit(db, created(person))
    rows = await outbox(sessions)
    assert len(rows) == 1
    subject, payload = rows[0]
    assert subject == f"{PREFIX}.webhook.user.created"
    assert payload["type"] == "user.created"
    assert payload["data"] == {"user_id": person, "actor": "admin-1"}
    assert await audit_count(sessions) == 1


async def test_a_row_that_announces_nothing_writes_no_event(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    async with sessions.begin() as db:
        write_audit(db, AuditEntry(action="group.add_members", status_code=200, target="g"))
    assert await outbox(sessions) == []
    assert await audit_count(sessions) == 1


async def test_a_change_that_fails_at_commit_leaves_no_event(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """The audit row and its event are inserted (flushed), then the change itself breaks a
    unique rule at commit: everything rolls back, the event with it."""
    taken = f"{uuid.uuid4().hex}@example.com"
    async with sessions.begin() as db:
        db.add(User(email=taken, username=uuid.uuid4().hex))
    with pytest.raises(IntegrityError):
        async with sessions.begin() as db:
            write_audit(db, created(str(uuid.uuid4())))
            await db.flush()
            inside = (await db.execute(text("SELECT count(*) FROM event_outbox"))).scalar_one()
            assert inside == 1  # written, in this transaction
            db.add(User(email=taken, username=uuid.uuid4().hex))  # fails at the commit
    assert await outbox(sessions) == []
    assert await audit_count(sessions) == 0


async def test_a_refusal_in_a_transaction_of_its_own_carries_its_event(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    refusal = AuditEntry(
        action="login.throttled",
        status_code=429,
        target_type="client",
        target="app-1",
        detail={"retry_after": 3},
    )
    await record_audit(sessions, refusal)
    rows = await outbox(sessions)
    assert [(s, p["type"], p["data"]) for s, p in rows] == [
        (
            f"{PREFIX}.webhook.signin.throttled",
            "signin.throttled",
            {
                "user_id": None,
                "client_id": "app-1",
                "reason": "account_throttled",
                "retry_after": 3,
            },
        )
    ]


async def test_a_factory_without_audit_events_writes_audit_rows_only(
    migrated_engine: AsyncEngine,
) -> None:
    plain = create_session_factory(migrated_engine)
    async with plain.begin() as db:
        write_audit(db, created(str(uuid.uuid4())))
    assert await outbox(plain) == []
    assert await audit_count(plain) == 1


async def test_the_relay_hears_of_the_event_at_commit_only(
    sessions: async_sessionmaker[AsyncSession], fresh_database_url: str
) -> None:
    heard: asyncio.Queue[str] = asyncio.Queue()
    listener = await asyncpg.connect(fresh_database_url.replace("+asyncpg", ""))
    try:
        await listener.add_listener(OUTBOX_CHANNEL, lambda *args: heard.put_nowait(args[2]))
        with pytest.raises(RuntimeError):
            async with sessions.begin() as db:
                write_audit(db, created(str(uuid.uuid4())))
                await db.flush()
                raise RuntimeError("the change fails")
        async with sessions.begin() as db:
            write_audit(db, created(str(uuid.uuid4())))
        await asyncio.wait_for(heard.get(), 10)
        # Notifications arrive in commit order: the rolled-back one would have come first.
        assert heard.empty()
    finally:
        await listener.close()
    assert len(await outbox(sessions)) == 1
