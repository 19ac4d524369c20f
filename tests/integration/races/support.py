"""Helpers of the race tests: start many requests at the same moment and read the answers.

:func:`at_once` opens one ``httpx.AsyncClient`` with a connection per request, creates
every request as a task waiting on one event, and sets the event only when all of them
are parked on it: the requests leave together, not one after another as they are built.
:func:`people` makes many people at once without hashing a password for each.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from tests.harness import infra, tokens
from tests.harness.api import signed_in_session
from tests.harness.records import TestUser, query
from tests.harness.stack import Stack

Call = Callable[[httpx.AsyncClient], Awaitable[httpx.Response]]


async def _at_once(calls: Sequence[Call]) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=len(calls) + 4, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        start = asyncio.Event()

        async def one(call: Call) -> httpx.Response:
            await start.wait()
            return await call(client)

        tasks = [asyncio.create_task(one(call)) for call in calls]
        await asyncio.sleep(0.05)  # every task is parked on the event
        start.set()
        return list(await asyncio.gather(*tasks))


def at_once(calls: Sequence[Call]) -> list[httpx.Response]:
    """The answers of ``calls``, started together, in the order given."""
    return infra.run(_at_once(calls))


def statuses(answers: Sequence[httpx.Response]) -> list[int]:
    return sorted(answer.status_code for answer in answers)


def no_server_error(answers: Sequence[httpx.Response]) -> None:
    failed = [(a.status_code, a.text[:200]) for a in answers if a.status_code >= 500]
    assert failed == [], failed


def oauth_error(answer: httpx.Response) -> dict[str, Any]:
    """The RFC 6749 §5.2 error object of a refused token request."""
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("application/json"), answer.headers
    assert answer.headers["cache-control"] == "no-store"
    body: dict[str, Any] = answer.json()
    assert set(body) <= {"error", "error_description"}, body
    return body


def people(stack: Stack, count: int) -> list[TestUser]:
    """``count`` people without a password (no argon2 per person), in one statement: for
    races that never sign in with one."""
    tag = uuid.uuid4().hex[:10]
    rows = query(
        stack,
        "INSERT INTO users (email, username, display_name, email_verified)"
        " SELECT 'race-' || $1 || '-' || n || '@example.com', 'race-' || $1 || '-' || n,"
        " 'Race Person', true FROM generate_series(1, $2::int) AS n"
        " RETURNING id, email",
        tag,
        count,
    )
    return [TestUser(str(row["id"]), str(row["email"]), "") for row in rows]


def self_service_bearer(stack: Stack, person_id: str) -> str:
    """An access token of the person's own, signed in with a password just now in a live
    session (the self-service routes that change credentials ask for a recent sign-in that
    still stands)."""
    return tokens.mint(
        stack.key_dir,
        issuer=stack.issuer,
        scopes=SELF_SERVICE_SCOPES,
        subject=person_id,
        auth_time=int(time.time()),
        amr=["pwd"],
        sid=signed_in_session(stack, person_id),
    )
