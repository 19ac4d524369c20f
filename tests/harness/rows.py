"""Rows read back from a stack's database, for assertions on what is stored: any read
query, and the audit rows of a session's back-channel logout deliveries."""

from __future__ import annotations

import json
import time

import asyncpg

from tests.harness import infra
from tests.harness.stack import Stack


async def _query(stack: Stack, sql: str, args: tuple[object, ...]) -> list[dict[str, object]]:
    dsn = stack.database_url.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(dsn)
    try:
        return [dict(row) for row in await conn.fetch(sql, *args)]
    finally:
        await conn.close()


def query(stack: Stack, sql: str, *args: object) -> list[dict[str, object]]:
    """Rows of a read query on the stack's database (for assertions on what is stored)."""
    return infra.run(_query(stack, sql, args))


def backchannel_attempts(
    stack: Stack, sid: str, expected: int, timeout: float = 10.0
) -> list[dict[str, object]]:
    """The audit rows (``POST backchannel_logout``) of the deliveries for session ``sid``,
    once ``expected`` are there or ``timeout`` has passed; ``detail`` parsed."""
    deadline = time.monotonic() + timeout
    while True:
        rows = query(
            stack,
            "SELECT target, status_code, actor, detail FROM audit_events"
            " WHERE action = 'POST backchannel_logout' AND detail->>'sid' = $1 ORDER BY id",
            sid,
        )
        parsed = [{**row, "detail": json.loads(str(row["detail"]))} for row in rows]
        if len(parsed) >= expected or time.monotonic() > deadline:
            return parsed
        time.sleep(0.05)


def notice_rows(stack: Stack, person_id: str, count: int = 1) -> list[dict[str, object]]:
    """The ``notice.*`` audit rows about the person, oldest first (``detail`` decoded), once
    ``count`` of them are there or 15 s have passed: a notice is sent after the answer."""
    deadline = time.monotonic() + 15
    while True:
        rows = query(
            stack,
            "SELECT action, status_code, actor, target_type, target, ip, detail "
            "FROM audit_events WHERE action LIKE 'notice.%' AND target = $1 ORDER BY id",
            person_id,
        )
        if len(rows) >= count or time.monotonic() > deadline:
            return [{**row, "detail": json.loads(str(row["detail"]))} for row in rows]
        time.sleep(0.1)
