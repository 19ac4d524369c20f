"""Contract of :mod:`idp_common.storage.repos.codes` against Postgres: a code is used at most
once (concurrent exchanges: exactly one gets it), a refused code stays burnt, a failure
after the burn leaves it usable and stores nothing, and a replay revokes its grant's
refresh tokens."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.storage.repos import codes as repo
from idp_common.storage.repos.audit import AuditEntry
from idp_common.storage.repos.codes import CodeReplayed
from libs.common.tests.conformance import tokens_fixtures
from libs.common.tests.conformance.tokens_fixtures import PERSON, RACERS, Db, Holder
from tests.harness import infra

pytestmark = pytest.mark.integration
make_database = tokens_fixtures.make_database
fresh_database_url = tokens_fixtures.fresh_database_url
sessions = tokens_fixtures.sessions
db = tokens_fixtures.db
holder = tokens_fixtures.holder


@dataclass(frozen=True)
class Verdict:
    refused: bool = False
    refresh_scope: str | None = "openid offline_access"


async def new_code(db: Db, holder: Holder) -> str:
    return await repo.create_authorization_code(
        db.hot,
        now=datetime.now(UTC),
        client_pk=holder.client_pk,
        user_id=holder.user_id,
        redirect_uri="https://app.example/cb",
        scope="openid offline_access",
        nonce=None,
        code_challenge=None,
        code_challenge_method=None,
        session_sid="sid-1",
        auth_time=datetime.now(UTC),
        acr=None,
        amr=["pwd"],
    )


async def nothing(_: Any) -> None:
    return None


async def replayed(grant_id: uuid.UUID, revoked: int) -> AuditEntry:
    return AuditEntry(action="test.replay", status_code=400, detail={"revoked": revoked})


async def exchange(db: Db, code: str, verdict: Verdict = Verdict(), **changes: Any) -> Any:
    values: dict[str, Any] = {
        "now": datetime.now(UTC),
        "person": PERSON,
        "decide": lambda code, person: verdict,
        "on_accept": nothing,
        "on_replay": replayed,
    }
    return await repo.exchange_authorization_code(db, code, **{**values, **changes})


async def test_concurrent_exchanges_exactly_one_gets_the_code(db: Db, holder: Holder) -> None:
    code = await new_code(db, holder)
    outcomes = await asyncio.gather(
        *(exchange(db, code) for _ in range(RACERS)), return_exceptions=True
    )
    won = [o for o in outcomes if isinstance(o, repo.Exchanged)]
    assert len(won) == 1 and won[0].refresh_token is not None
    assert won[0].person == (holder.user_id, False)
    assert all(isinstance(o, CodeReplayed) for o in outcomes if o not in won)


async def test_a_refused_code_stays_burnt_and_issues_nothing(db: Db, holder: Holder) -> None:
    code = await new_code(db, holder)
    done = await exchange(db, code, Verdict(refused=True, refresh_scope=None))
    assert done.refresh_token is None
    with pytest.raises(CodeReplayed):
        await exchange(db, code)


async def test_a_failure_after_the_burn_takes_it_back(db: Db, holder: Holder) -> None:
    code = await new_code(db, holder)
    grants: list[uuid.UUID] = []

    async def redis_down(done: Any) -> None:
        grants.append(done.code.grant_id)
        raise ConnectionError("redis")

    with pytest.raises(ConnectionError):
        await exchange(db, code, on_accept=redis_down)
    async with db.hot.connection() as conn:  # the grant's refresh token was taken back
        sql = "SELECT count(*) FROM refresh_tokens WHERE grant_id = $1"
        assert await conn.fetchval(sql, grants[0]) == 0
    assert (await exchange(db, code)).refresh_token is not None


async def test_a_decision_that_fails_leaves_the_code_usable(db: Db, holder: Holder) -> None:
    code = await new_code(db, holder)

    def broken(code: Any, person: Any) -> Verdict:
        raise RuntimeError("a bug in the caller's decision")

    with pytest.raises(RuntimeError):
        await exchange(db, code, decide=broken)
    assert (await exchange(db, code)).refresh_token is not None


async def test_a_database_failure_in_the_take_back_keeps_the_code_burnt(
    db: Db, holder: Holder, fresh_database_url: str
) -> None:
    """Redis fails after the burn and PostgreSQL is gone before the take-back (its
    connections cut, new ones refused): the exchange fails, no token leaves it, and the
    code stays burnt; presenting it again is a replay, which revokes what was left."""
    code = await new_code(db, holder)
    name = fresh_database_url.rsplit("/", 1)[1]
    admin = await asyncpg.connect(infra.PG_ADMIN_URL)

    async def database_and_redis_down(_: Any) -> None:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
        )
        raise ConnectionError("redis")

    try:
        # the take-back's own error, whichever asyncpg raises for a lost database
        with pytest.raises(Exception):  # noqa: B017
            await exchange(db, code, on_accept=database_and_redis_down)
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()
    with pytest.raises(CodeReplayed):  # still burnt: the take-back did not happen
        await exchange(db, code)
    async with db.hot.connection() as conn:  # the refresh token left behind is revoked
        sql = "SELECT count(*) FILTER (WHERE revoked_at IS NULL), count(*) FROM refresh_tokens"
        assert tuple(await conn.fetchrow(sql)) == (0, 1)


async def test_a_replay_before_the_take_back_keeps_the_code_burnt(db: Db, holder: Holder) -> None:
    """The code is presented again while its first exchange waits on Redis, which then
    fails: the replay revoked the grant, and the take-back must not undo that."""
    code = await new_code(db, holder)

    async def replay_then_fail(_: Any) -> None:
        with pytest.raises(CodeReplayed):
            await exchange(db, code)
        raise ConnectionError("redis")

    with pytest.raises(ConnectionError):
        await exchange(db, code, on_accept=replay_then_fail)
    with pytest.raises(CodeReplayed):  # still burnt
        await exchange(db, code)
    async with db.hot.connection() as conn:  # its refresh token stays, revoked
        sql = "SELECT count(*) FILTER (WHERE revoked_at IS NULL), count(*) FROM refresh_tokens"
        assert tuple(await conn.fetchrow(sql)) == (0, 1)


async def test_a_replay_revokes_the_grants_refresh_tokens(db: Db, holder: Holder) -> None:
    code = await new_code(db, holder)
    await exchange(db, code)
    counts: list[int] = []

    async def count(grant_id: uuid.UUID, revoked: int) -> AuditEntry:
        counts.append(revoked)
        return await replayed(grant_id, revoked)

    for _ in range(2):
        with pytest.raises(CodeReplayed):
            await exchange(db, code, on_replay=count)
    assert counts == [1, 0]


async def test_an_unknown_code_is_invalid(db: Db) -> None:
    with pytest.raises(InvalidGrant, match="is invalid"):
        await exchange(db, "no-such-code")


async def test_the_cleanup_deletes_only_expired_codes(db: Db, holder: Holder) -> None:
    code = await new_code(db, holder)
    cutoffs = [datetime.now(UTC), datetime.now(UTC) + timedelta(minutes=2)]
    async with db.sessions.begin() as session:
        deleted = [
            (await repo.delete_expired_codes(session, cutoff, limit=10)).deleted
            for cutoff in cutoffs
        ]
    assert deleted == [0, 1]
    with pytest.raises(InvalidGrant, match="is invalid"):
        await exchange(db, code)
