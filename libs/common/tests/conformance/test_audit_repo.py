"""Contract of :mod:`idp_common.storage.repos.audit` against Postgres: a row written in the
caller's transaction commits or rolls back with the change it describes, ``record_audit``
commits on its own, a refusal stands (nothing raised) when the audit store is down, the
list filters narrow and pages newest first with no row lost or repeated, and concurrent
writers lose no row."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import InvalidArgument
from idp_common.protocol.rfc4648_base64url import base64url_encode
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import AuditEvent
from idp_common.storage.repos import audit, users
from idp_common.storage.repos.audit import AuditEntry, AuditFilter, AuditRead
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import RACERS, Sessions, new_person, race
from libs.common.tests.conformance.shared_fixtures import count

pytestmark = pytest.mark.integration
make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions
#: Nothing listens there: connections are refused at once.
DOWN_URL = "postgresql+asyncpg://postgres@127.0.0.1:1/nowhere"


def entry(action: str, **more: Any) -> AuditEntry:
    return AuditEntry(action=action, status_code=200, **more)


async def everything(sessions: Sessions, filters: AuditFilter, limit: int) -> list[list[AuditRead]]:
    """Every page of the list, followed cursor by cursor."""
    pages, cursor = [], None
    async with sessions() as session:
        while True:
            page = await audit.list_audit(session, filters, limit=limit, cursor=cursor)
            pages.append(page.items)
            if page.next_cursor is None:
                return pages
            cursor = page.next_cursor


async def newest_first(sessions: Sessions) -> list[int]:
    """Every row's id, as the list must order them (by occurred_at, then id, descending)."""
    async with sessions() as session:
        rows = (await session.execute(AuditEvent.__table__.select())).all()
    return [r.id for r in sorted(rows, key=lambda r: (r.occurred_at, r.id), reverse=True)]


async def test_a_written_row_commits_and_rolls_back_with_its_transaction(
    sessions: Sessions,
) -> None:
    async with sessions.begin() as session:
        audit.write_audit(
            session,
            entry(
                "user.create",
                ip="192.0.2.7",
                actor="admin",
                target_type="user",
                target="u-1",
                detail={"email": "a@example.test"},
            ),
        )
    with pytest.raises(RuntimeError, match="the change failed"):
        async with sessions.begin() as session:
            audit.write_audit(session, entry("user.delete", target="u-1"))
            await session.flush()  # the row reached Postgres, in the open transaction
            raise RuntimeError("the change failed")
    assert await count(sessions, AuditEvent, AuditEvent.action == "user.delete") == 0
    (kept,) = (await everything(sessions, AuditFilter(), 10))[0]
    assert (kept.action, kept.status_code, kept.ip) == ("user.create", 200, "192.0.2.7")
    assert (kept.actor, kept.target_type, kept.target) == ("admin", "user", "u-1")
    assert kept.detail == {"email": "a@example.test"}
    assert kept.occurred_at.tzinfo is not None


async def test_the_row_and_the_change_it_describes_are_one(sessions: Sessions) -> None:
    person = await new_person(sessions)
    with pytest.raises(LookupError):
        async with sessions.begin() as session:
            await users.update_user(session, person, {"display_name": "Changed"})
            audit.write_audit(session, entry("user.update", target=str(person)))
            raise LookupError
    async with sessions() as session:
        unchanged = await users.get_user(session, person)
    assert unchanged is not None and unchanged.display_name == ""
    assert await count(sessions, AuditEvent) == 0


async def test_record_audit_commits_in_a_transaction_of_its_own(sessions: Sessions) -> None:
    await audit.record_audit(sessions, entry("token.refused", actor="app-1"))
    await audit.record_refusal(sessions, entry("login.refused", actor="app-1"))
    assert await count(sessions, AuditEvent, AuditEvent.actor == "app-1") == 2


async def test_a_refusal_stands_when_the_audit_store_is_down(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine = create_engine(DOWN_URL)
    down = create_session_factory(engine)
    try:
        with pytest.raises(OSError):
            await audit.record_audit(down, entry("login.refused"))
        with caplog.at_level(logging.ERROR, logger="idp.audit"):
            assert await audit.record_refusal(down, entry("login.refused")) is None
    finally:
        await engine.dispose()
    (logged,) = [r for r in caplog.records if r.name == "idp.audit"]
    assert logged.levelno == logging.ERROR
    assert logged.getMessage().startswith("audit write failed for login.refused (")


async def test_each_filter_narrows_and_they_combine(sessions: Sessions) -> None:
    times: list[datetime] = []
    for action, actor, target in (
        ("user.update", "ada", "u-1"),
        ("user.update", "bob", "u-2"),
        ("user.delete", "ada", "u-2"),
        ("client.update", "ada", "u-1"),
    ):
        await audit.record_audit(sessions, entry(action, actor=actor, target=target))
        (latest,) = (await everything(sessions, AuditFilter(), 1))[0]
        times.append(latest.occurred_at)
    assert times == sorted(times) and len(set(times)) == len(times)

    async def actions(**given: Any) -> list[tuple[str, str | None, str | None]]:
        pages = await everything(sessions, AuditFilter(**given), 10)
        return [(r.action, r.actor, r.target) for r in pages[0]]

    assert await actions(action="user.update") == [
        ("user.update", "bob", "u-2"),
        ("user.update", "ada", "u-1"),
    ]
    assert [t for _, _, t in await actions(actor="ada")] == ["u-1", "u-2", "u-1"]
    assert await actions(target="u-2", actor="ada") == [("user.delete", "ada", "u-2")]
    assert await actions(action="user.update", actor="nobody") == []
    # ``since`` includes its moment, ``until`` excludes it.
    assert [a for a, _, _ in await actions(since=times[2])] == ["client.update", "user.delete"]
    assert [a for a, _, _ in await actions(until=times[2])] == ["user.update", "user.update"]
    assert await actions(since=times[1], until=times[2]) == [("user.update", "bob", "u-2")]


async def test_pages_run_newest_first_without_gaps_or_repeats(sessions: Sessions) -> None:
    for i in range(6):
        await audit.record_audit(sessions, entry(f"a.{i}"))
    async with sessions.begin() as session:  # four rows of one moment: the id decides
        for i in range(4):
            audit.write_audit(session, entry(f"b.{i}"))
    order = await newest_first(sessions)
    assert len(order) == 10
    for limit, sizes in ((3, [3, 3, 3, 1]), (5, [5, 5]), (10, [10]), (11, [10])):
        pages = await everything(sessions, AuditFilter(), limit)
        assert [len(p) for p in pages] == sizes
        assert [r.id for p in pages for r in p] == order
    filtered = await everything(sessions, AuditFilter(action="a.1"), 1)
    assert [[r.action for r in p] for p in filtered] == [["a.1"]]


async def test_a_cursor_not_made_by_the_list_is_refused_naming_it(sessions: Sessions) -> None:
    for cursor in ("not a cursor!", base64url_encode(b"yesterday|1"), base64url_encode(b"\xff")):
        async with sessions() as session:
            with pytest.raises(InvalidArgument) as refused:
                await audit.list_audit(session, AuditFilter(), limit=5, cursor=cursor)
        assert [e.field for e in refused.value.errors] == ["cursor"]


async def test_concurrent_writers_never_lose_a_row(sessions: Sessions) -> None:
    async def in_callers_transaction(session: AsyncSession, index: int) -> None:
        audit.write_audit(session, entry("race.write", target=str(index)))

    written = await race(sessions, in_callers_transaction)
    recorded = await asyncio.gather(
        *(audit.record_audit(sessions, entry("race.record", target=str(i))) for i in range(RACERS)),
        return_exceptions=True,
    )
    assert [o for o in written + recorded if isinstance(o, BaseException)] == []
    pages = await everything(sessions, AuditFilter(), 7)
    listed = [(r.action, r.target) for p in pages for r in p]
    assert sorted(listed) == sorted(
        (action, str(i)) for action in ("race.record", "race.write") for i in range(RACERS)
    )
    assert [r.id for p in pages for r in p] == await newest_first(sessions)
