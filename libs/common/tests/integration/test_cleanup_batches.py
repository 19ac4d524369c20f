"""The cleanup job in batches against Postgres: a run over more rows than
a batch deletes exactly what is an hour past expiry (spent, revoked or not; codes used or
not), keeps the rest (revoked but unexpired tokens, rows inside the margin) and the audit
log, writes its ``cleanup.ran`` row; one run at a time (the advisory lock held across the
batches); a run that fails releases the lock and audits what its batches deleted."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from idp_common.operations.cleanup import (
    AUDIT_CLEANUP,
    CLEANUP_MARGIN,
    LOCK_KEY,
    PERIODIC_ACTOR,
    run_cleanup,
)
from idp_common.storage.db.engine import create_session_factory
from idp_common.storage.db.models import (
    AuditEvent,
    AuthorizationCode,
    Client,
    PasswordResetToken,
    RefreshToken,
    User,
)

pytestmark = pytest.mark.integration

NOW = datetime.now(UTC)
PAST = NOW - CLEANUP_MARGIN - timedelta(minutes=5)  # an hour and more past expiry
BATCH = 4


class Planted:
    """What a test planted: per table, the keys that must go and those that must stay."""

    def __init__(self) -> None:
        self.gone: dict[str, set[Any]] = {"codes": set(), "tokens": set(), "resets": set()}
        self.kept: dict[str, set[Any]] = {"codes": set(), "tokens": set(), "resets": set()}

    def count(self, kind: str) -> int:
        return len(self.gone[kind])


async def plant(engine: AsyncEngine) -> Planted:
    """Rows on both sides of the cutoff, more of each than a batch; ten tokens share one
    ``expires_at`` (more than a batch at one instant); an old audit row."""
    planted = Planted()
    async with create_session_factory(engine).begin() as session:
        client = Client(client_id="app", name="App", type="public", grant_types=["refresh_token"])
        person = User(email="p@example.test")
        session.add_all([client, person])
        await session.flush()

        def token(expires: datetime, *, spent: bool = False, revoked: bool = False) -> None:
            row = RefreshToken(
                id=uuid.uuid4(),
                token_digest=os.urandom(32),
                family_id=uuid.uuid4(),
                client_pk=client.id,
                user_id=person.id,
                scope="openid",
                issued_at=expires - timedelta(days=30),
                expires_at=expires,
                spent_at=expires - timedelta(days=29) if spent else None,
                revoked_at=NOW - timedelta(days=1) if revoked else None,
            )
            session.add(row)
            past = expires < NOW - CLEANUP_MARGIN
            (planted.gone if past else planted.kept)["tokens"].add(row.id)

        for i in range(9):
            token(PAST - timedelta(minutes=i))
        for _ in range(10):
            token(PAST - timedelta(hours=3))  # one instant, more rows than a batch
        for i in range(4):
            token(PAST - timedelta(days=i), spent=True)
            token(PAST - timedelta(days=i, minutes=1), revoked=True)
        for i in range(3):
            token(NOW - timedelta(minutes=30 + i))  # expired, inside the margin
            token(NOW + timedelta(days=i + 1), revoked=True)  # revoked, not expired: kept
            token(NOW + timedelta(days=i + 1), spent=True)
            token(NOW + timedelta(days=20))

        def code(expires: datetime, *, used: bool) -> None:
            row = AuthorizationCode(
                code_digest=os.urandom(32),
                grant_id=uuid.uuid4(),
                client_pk=client.id,
                user_id=person.id,
                redirect_uri="https://app.example/cb",
                scope="openid",
                auth_time=expires - timedelta(minutes=1),
                expires_at=expires,
                consumed_at=expires - timedelta(seconds=50) if used else None,
            )
            session.add(row)
            past = expires < NOW - CLEANUP_MARGIN
            (planted.gone if past else planted.kept)["codes"].add(row.code_digest)

        for i in range(11):
            code(PAST - timedelta(minutes=3 * i), used=i % 3 != 0)
        for i in range(2):
            code(NOW - timedelta(minutes=20), used=True)
            code(NOW + timedelta(seconds=50), used=bool(i))

        def reset(expires: datetime) -> None:
            row = PasswordResetToken(
                token_digest=os.urandom(32), user_id=person.id, expires_at=expires
            )
            session.add(row)
            past = expires < NOW - CLEANUP_MARGIN
            (planted.gone if past else planted.kept)["resets"].add(row.token_digest)

        for i in range(6):
            reset(PAST - timedelta(hours=i))
        reset(NOW + timedelta(minutes=10))
        session.add(
            AuditEvent(
                action="login.succeeded", status_code=200, occurred_at=NOW - timedelta(days=400)
            )
        )
    return planted


async def remaining(engine: AsyncEngine) -> dict[str, set[Any]]:
    async with create_session_factory(engine)() as session:
        return {
            "tokens": set((await session.scalars(select(RefreshToken.id))).all()),
            "codes": set((await session.scalars(select(AuthorizationCode.code_digest))).all()),
            "resets": set((await session.scalars(select(PasswordResetToken.token_digest))).all()),
        }


async def cleanup_rows(engine: AsyncEngine) -> list[AuditEvent]:
    async with create_session_factory(engine)() as session:
        query = select(AuditEvent).where(AuditEvent.action == AUDIT_CLEANUP).order_by(AuditEvent.id)
        return list((await session.scalars(query)).all())


async def audit_count(engine: AsyncEngine) -> int:
    async with create_session_factory(engine)() as session:
        return len((await session.scalars(select(AuditEvent.id))).all())


def expected(planted: Planted) -> dict[str, int]:
    return {
        "authorization codes": planted.count("codes"),
        "refresh tokens": planted.count("tokens"),
        "password reset tokens": planted.count("resets"),
    }


def dsn(engine: AsyncEngine) -> str:
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


async def lock_is_free(engine: AsyncEngine) -> bool:
    conn = await asyncpg.connect(dsn(engine))
    try:
        if got := await conn.fetchval("SELECT pg_try_advisory_lock($1)", LOCK_KEY):
            await conn.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)
        return bool(got)
    finally:
        await conn.close()


async def test_a_run_in_batches_deletes_exactly_what_is_an_hour_past_expiry(
    migrated_engine: AsyncEngine,
) -> None:
    planted = await plant(migrated_engine)
    assert all(planted.count(kind) > BATCH for kind in ("codes", "tokens", "resets"))
    audit_before = await audit_count(migrated_engine)

    counts = await run_cleanup(migrated_engine, now=NOW, batch_size=BATCH, pause=0.001)

    assert counts == expected(planted)
    left = await remaining(migrated_engine)
    assert left == planted.kept  # kept: inside the margin, revoked or spent but unexpired
    [row] = await cleanup_rows(migrated_engine)
    assert (row.actor, row.status_code) == (PERIODIC_ACTOR, 200)
    assert row.detail == {"cutoff": (NOW - CLEANUP_MARGIN).isoformat(), **expected(planted)}
    assert await audit_count(migrated_engine) == audit_before + 1  # the audit log: only added to
    assert await lock_is_free(migrated_engine)

    assert await run_cleanup(migrated_engine, now=NOW, batch_size=BATCH) == dict.fromkeys(
        expected(planted), 0
    )
    assert len(await cleanup_rows(migrated_engine)) == 1  # a periodic run that found nothing


async def held_midway(engine: AsyncEngine) -> tuple[asyncpg.Connection, Awaitable[Any]]:
    """A run started while another connection holds ``password_reset_tokens`` (its last
    table) exclusively: it deletes the codes and tokens, then waits there, holding the
    lock. Returns that connection (rolling it back lets the run go on) and the run."""
    blocker = await asyncpg.connect(dsn(engine))
    await blocker.execute("BEGIN; LOCK TABLE password_reset_tokens IN ACCESS EXCLUSIVE MODE")
    first = asyncio.ensure_future(run_cleanup(engine, now=NOW, batch_size=BATCH))
    for _ in range(200):
        waiting = await blocker.fetchval(
            "SELECT count(*) FROM pg_locks WHERE NOT granted"
            " AND relation = 'password_reset_tokens'::regclass"
        )
        if waiting:
            return blocker, first
        await asyncio.sleep(0.05)
    raise AssertionError("the first run never reached password_reset_tokens")


async def test_while_one_run_holds_the_lock_another_skips_and_an_operator_waits(
    migrated_engine: AsyncEngine,
) -> None:
    planted = await plant(migrated_engine)
    blocker, first = await held_midway(migrated_engine)
    try:
        assert await run_cleanup(migrated_engine, now=NOW, batch_size=BATCH) is None
        operator = asyncio.ensure_future(
            run_cleanup(migrated_engine, now=NOW, batch_size=BATCH, actor="operator:cli", wait=True)
        )
        await asyncio.sleep(0.3)
        assert not operator.done()  # waits for the lock, deletes nothing meanwhile
    finally:
        await blocker.execute("ROLLBACK")
        await blocker.close()
    assert await first == expected(planted)
    assert await operator == dict.fromkeys(expected(planted), 0)  # nothing left to delete
    rows = await cleanup_rows(migrated_engine)
    assert [(r.actor, r.detail["refresh tokens"]) for r in rows] == [
        (PERIODIC_ACTOR, planted.count("tokens")),
        ("operator:cli", 0),
    ]
    assert await remaining(migrated_engine) == planted.kept
    assert await lock_is_free(migrated_engine)


async def test_a_run_stopped_midway_releases_the_lock_and_audits_what_it_deleted(
    migrated_engine: AsyncEngine,
) -> None:
    planted = await plant(migrated_engine)
    blocker, first = await held_midway(migrated_engine)
    try:
        assert not await lock_is_free(migrated_engine)
        first.cancel()  # the service stops while a batch waits
        with pytest.raises(asyncio.CancelledError):
            await first
        assert await lock_is_free(migrated_engine)
    finally:
        await blocker.execute("ROLLBACK")
        await blocker.close()
    [row] = await cleanup_rows(migrated_engine)
    assert row.status_code == 500
    assert row.detail == {
        "cutoff": (NOW - CLEANUP_MARGIN).isoformat(),
        "authorization codes": planted.count("codes"),
        "refresh tokens": planted.count("tokens"),
        "password reset tokens": 0,
        "error": "CancelledError",
    }
    left = await remaining(migrated_engine)
    assert left["resets"] == planted.gone["resets"] | planted.kept["resets"]
