"""Attack 6: logout deleted the session before the database transaction.

Ending a session removed it from Redis first, then revoked its refresh tokens and wrote the
back-channel outbox event in a transaction. When that transaction failed (here: the disk is
full as the outbox row is inserted), the browser was signed out, but the refresh tokens
stayed valid and no application was ever told; and a retried logout with the same cookie
found no session, so nothing could complete what the first one started. An application (or
whoever stole its refresh token) kept its access indefinitely after the person signed out.

The obstacle is real: a trigger on the stack's own ``event_outbox`` table refuses the row of
this one person with SQLSTATE 53100 (``disk_full``), and is dropped before the retry.
"""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import httpx
import pytest

from tests.harness import infra, records
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration


async def _execute(stack: Stack, sql: str) -> None:
    conn = await asyncpg.connect(
        stack.database_url.replace("postgresql+asyncpg://", "postgresql://")
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def execute(stack: Stack, sql: str) -> None:
    infra.run(_execute(stack, sql))


def refuse_outbox_rows_of(stack: Stack, user_id: str, name: str) -> None:
    """The database fails the outbox insert of this person, as a full disk would."""
    uuid.UUID(user_id)  # only a uuid goes into the SQL text
    execute(
        stack,
        f"""
        CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.payload->>'user_id' = '{user_id}' THEN
                RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER {name} BEFORE INSERT ON event_outbox
            FOR EACH ROW EXECUTE FUNCTION {name}();
        """,
    )


def remove_obstacle(stack: Stack, name: str) -> None:
    execute(
        stack, f"DROP TRIGGER IF EXISTS {name} ON event_outbox; DROP FUNCTION IF EXISTS {name}();"
    )


def test_a_logout_whose_transaction_failed_is_completed_by_the_retry(stack: Stack) -> None:
    app = records.create_client(stack, skip_consent=True)
    person = records.create_user(stack)
    cookie, session = records.create_browser_session(stack, person.id)
    records.issue_session_refresh_token(stack, app.client_id, person.id, session.sid)
    obstacle = f"refuse_outbox_{uuid.uuid4().hex[:8]}"
    headers = {"Cookie": f"svc_session={cookie}"}

    with httpx.Client(base_url=stack.service_url("token"), timeout=20) as token_service:
        refuse_outbox_rows_of(stack, person.id, obstacle)
        try:
            failed = token_service.get("/oauth2/logout", headers=headers)
        finally:
            remove_obstacle(stack, obstacle)
        assert failed.status_code >= 500, failed.text
        nothing = records.query(
            stack, "SELECT id FROM event_outbox WHERE payload->>'sid' = $1", session.sid
        )
        assert nothing == []

        retried = token_service.get("/oauth2/logout", headers=headers)
        assert retried.status_code == 302, retried.text

    live = records.query(
        stack,
        "SELECT id FROM refresh_tokens WHERE session_sid = $1 AND revoked_at IS NULL",
        session.sid,
    )
    assert live == [], "the session's refresh tokens are still valid after the retried logout"
    events = records.query(
        stack, "SELECT payload FROM event_outbox WHERE payload->>'sid' = $1", session.sid
    )
    assert len(events) == 1, f"{len(events)} session.ended events for the session"
    assert not records.session_exists(stack, session.sid)


def test_two_logouts_at_once_write_one_event(stack: Stack) -> None:
    app = records.create_client(stack, skip_consent=True)
    person = records.create_user(stack)
    cookie, session = records.create_browser_session(stack, person.id)
    records.issue_session_refresh_token(stack, app.client_id, person.id, session.sid)
    headers = {"Cookie": f"svc_session={cookie}"}

    async def both() -> list[int]:
        async with httpx.AsyncClient(base_url=stack.service_url("token"), timeout=20) as client:
            answers = await asyncio.gather(
                *(client.get("/oauth2/logout", headers=headers) for _ in range(8))
            )
        return [answer.status_code for answer in answers]

    assert infra.run(both()) == [302] * 8
    events = records.query(
        stack, "SELECT payload FROM event_outbox WHERE payload->>'sid' = $1", session.sid
    )
    assert len(events) == 1
    assert not records.session_exists(stack, session.sid)
