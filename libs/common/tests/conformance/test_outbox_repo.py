"""Contract of :mod:`idp_common.storage.repos.outbox` against Postgres: one event per dedupe
key whatever the number of writers, and concurrent claims never hand one row to two
relays; a published row is not claimed again."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.repos import outbox as repo
from libs.common.tests.conformance import tokens_fixtures
from libs.common.tests.conformance.people_fixtures import RACERS, race
from libs.common.tests.conformance.tokens_fixtures import Sessions

pytestmark = pytest.mark.integration
make_database = tokens_fixtures.make_database
fresh_database_url = tokens_fixtures.fresh_database_url
sessions = tokens_fixtures.sessions


async def test_one_event_per_dedupe_key(sessions: Sessions) -> None:
    async def write(session: AsyncSession, index: int) -> bool:
        return await repo.add_event(session, "idp.session.ended", {"n": index}, dedupe_key="k")

    outcomes = await race(sessions, write)
    assert sorted(outcomes, key=str) == [False] * (RACERS - 1) + [True]


async def test_concurrent_claims_never_deliver_twice(sessions: Sessions) -> None:
    async with sessions.begin() as session:
        for n in range(RACERS * 3):
            await repo.add_event(session, "idp.session.ended", {"n": n})
    claimed: list[int] = []
    gate = asyncio.Event()

    async def relay(session: AsyncSession, _: int) -> None:
        rows = await repo.claim_pending(session, 5)
        await gate.wait()  # every claim is held at once
        claimed.extend(row.id for row in rows)
        await repo.mark_published(session, [row.id for row in rows])

    racing = asyncio.ensure_future(race(sessions, relay))
    await asyncio.sleep(1.0)
    gate.set()
    assert not [o for o in await racing if isinstance(o, BaseException)]
    assert len(claimed) == len(set(claimed)) == RACERS * 3
    async with sessions() as session:
        assert await repo.claim_pending(session, 100) == []


async def test_the_writers_traceparent_is_kept_with_the_row(sessions: Sessions) -> None:
    traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    async with sessions.begin() as session:
        await repo.add_event(session, "idp.session.ended", {"n": 1}, traceparent=traceparent)
        await repo.add_event(session, "idp.session.ended", {"n": 2})
    async with sessions.begin() as session:
        rows = await repo.claim_pending(session, 10)
    assert [(row.payload, row.traceparent) for row in rows] == [
        (b'{"n":1}', traceparent),
        (b'{"n":2}', None),
    ]
