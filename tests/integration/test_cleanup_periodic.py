"""The periodic cleanup (contract §3 last row, §8): deletes codes and refresh tokens an
hour past expiry, keeps revoked unexpired ones and the audit log, and only one replica
runs it at a time (a PostgreSQL advisory lock)."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from sqlalchemy import select

from idp_common.operations.cleanup import LOCK_KEY, run_cleanup_once
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.hot_pool import HotPool
from idp_common.storage.db.models import Client
from idp_common.storage.repos.codes import create_authorization_code
from idp_common.storage.repos.refresh_tokens import issue_refresh_token, revoke_family
from tests.harness import infra, records
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration


async def _plant(stack: Stack, client_id: str, user_id: str) -> dict[str, str]:
    """An expired code, an expired refresh token, a revoked live one and a fresh one."""
    now = datetime.now(UTC)
    engine = create_engine(stack.database_url)
    hot = HotPool(stack.database_url, timeout=5.0)
    planted: dict[str, str] = {}
    try:
        async with create_session_factory(engine).begin() as db:
            pk = (
                await db.execute(select(Client.id).where(Client.client_id == client_id))
            ).scalar_one()
            common = {
                "client_pk": pk,
                "user_id": uuid.UUID(user_id),
                "scope": "openid",
                "session_sid": None,
                "acr": None,
                "amr": ["pwd"],
            }
            for name, issued in (("old_code", now - timedelta(hours=3)), ("new_code", now)):
                await create_authorization_code(
                    hot,
                    now=issued,
                    redirect_uri="http://127.0.0.1:9/cb",
                    nonce=None,
                    code_challenge=None,
                    code_challenge_method=None,
                    auth_time=issued,
                    **common,
                )
                planted[name] = issued.isoformat()
            for name, issued in (
                ("old_rt", now - timedelta(days=31, hours=2)),
                ("revoked_rt", now),
                ("live_rt", now),
            ):
                family = uuid.uuid4()
                await issue_refresh_token(
                    db,
                    family_id=family,
                    grant_id=None,
                    parent_id=None,
                    auth_time=issued,
                    now=issued,
                    **common,
                )
                if name == "revoked_rt":
                    await revoke_family(db, family, now)
                planted[name] = str(family)
    finally:
        await hot.aclose()
        await engine.dispose()
    return planted


def counts(stack: Stack, client_id: str) -> dict[str, int]:
    code_rows = records.query(
        stack,
        "SELECT count(*) AS n FROM authorization_codes c JOIN clients k ON k.id = c.client_pk "
        "WHERE k.client_id = $1",
        client_id,
    )
    token_rows = records.query(
        stack,
        "SELECT count(*) AS n, count(revoked_at) AS revoked FROM refresh_tokens t "
        "JOIN clients k ON k.id = t.client_pk WHERE k.client_id = $1",
        client_id,
    )
    return {
        "codes": int(code_rows[0]["n"]),
        "tokens": int(token_rows[0]["n"]),
        "revoked": int(token_rows[0]["revoked"]),
    }


def test_only_one_replica_runs_at_a_time(stack: Stack) -> None:
    async def scenario() -> tuple[object, object]:
        dsn = stack.database_url.replace("postgresql+asyncpg://", "postgresql://")
        holder = await asyncpg.connect(dsn)
        engine = create_engine(stack.database_url)
        try:
            async with holder.transaction():
                await holder.execute("SELECT pg_advisory_xact_lock($1)", LOCK_KEY)
                while_held = await run_cleanup_once(engine)
            after = await run_cleanup_once(engine)
            return while_held, after
        finally:
            await holder.close()
            await engine.dispose()

    while_held, after = infra.run(scenario())
    assert while_held is None
    assert isinstance(after, dict)


def test_periodic_cleanup_deletes_only_what_is_an_hour_past_expiry(
    extra_processes: Stack,
) -> None:
    stack = extra_processes
    app = records.create_client(stack)
    person = records.create_user(stack)
    infra.run(_plant(stack, app.client_id, person.id))
    audit_before = records.query(stack, "SELECT count(*) AS n FROM audit_events")[0]["n"]
    assert counts(stack, app.client_id) == {"codes": 2, "tokens": 3, "revoked": 1}
    process = stack.start_service("token", {"SVC_CLEANUP_INTERVAL": "1"})
    stack.wait_until_up(process)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and counts(stack, app.client_id)["codes"] == 2:
        time.sleep(0.3)
    assert counts(stack, app.client_id) == {"codes": 1, "tokens": 2, "revoked": 1}
    audit_after = records.query(stack, "SELECT count(*) AS n FROM audit_events")[0]["n"]
    assert audit_after >= audit_before  # never deleted
    runs = records.query(
        stack,
        "SELECT detail FROM audit_events WHERE action = 'cleanup.ran' "
        "AND actor = 'service:cleanup'",
    )
    assert runs
