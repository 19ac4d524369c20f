"""Contract of :mod:`idp_common.storage.repos.refresh_tokens` against Postgres: a token is
spent at most once (concurrent spends: exactly one wins), a refusal changes nothing, a
reuse revokes the family with its audit row or (when ``on_reuse`` fails) not at all, and
"active" means the same to every read."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.storage.db.models import AuditEvent
from idp_common.storage.repos import refresh_tokens as repo
from idp_common.storage.repos.refresh_tokens import RefreshTokenReused
from libs.common.tests.conformance import tokens_fixtures
from libs.common.tests.conformance.tokens_fixtures import PERSON, RACERS, Db, Holder

pytestmark = pytest.mark.integration
make_database = tokens_fixtures.make_database
fresh_database_url = tokens_fixtures.fresh_database_url
sessions = tokens_fixtures.sessions
db = tokens_fixtures.db
holder = tokens_fixtures.holder


async def issue(
    db: Db, holder: Holder, *, scope: str = "openid offline_access", jkt: str | None = None
) -> str:
    async with db.sessions.begin() as session:
        return await repo.issue_refresh_token(
            session,
            family_id=uuid.uuid4(),
            grant_id=uuid.uuid4(),
            parent_id=None,
            client_pk=holder.client_pk,
            user_id=holder.user_id,
            scope=scope,
            session_sid="sid-1",
            auth_time=datetime.now(UTC),
            acr=None,
            amr=["pwd"],
            now=datetime.now(UTC),
            jkt=jkt,
        )


async def accept(record: repo.RefreshTokenRecord, person: Any) -> Any:
    return record, person


async def reused(_: RefreshTokenReused) -> None:
    return None


async def rotate(db: Db, holder: Holder, token: str, **changes: Any) -> Any:
    values: dict[str, Any] = {
        "client_pk": holder.client_pk,
        "requested": [],
        "now": datetime.now(UTC),
        "person": PERSON,
        "accept": accept,
        "on_reuse": reused,
    }
    return await repo.rotate_refresh_token(db, token, **{**values, **changes})


async def test_a_rotation_spends_the_token_and_issues_its_successor(db: Db, holder: Holder) -> None:
    token = await issue(db, holder)
    (old, person), successor = await rotate(db, holder, token)
    assert person == (holder.user_id, False)
    (child, _), _ = await rotate(db, holder, successor)
    assert child.parent_id == old.id and child.family_id == old.family_id


async def test_the_dpop_key_binding_is_carried_to_each_successor(db: Db, holder: Holder) -> None:
    """RFC 9449 §5: a public client's bound token stays bound through rotation; an
    unbound one stays unbound."""
    token = await issue(db, holder, jkt="jkt-1")
    (old, _), successor = await rotate(db, holder, token)
    (child, _), _ = await rotate(db, holder, successor)
    assert (old.jkt, child.jkt) == ("jkt-1", "jkt-1")
    (plain, _), _ = await rotate(db, holder, await issue(db, holder))
    assert plain.jkt is None


async def test_concurrent_spends_exactly_one_wins(db: Db, holder: Holder) -> None:
    token = await issue(db, holder)
    outcomes = await asyncio.gather(
        *(rotate(db, holder, token) for _ in range(RACERS)), return_exceptions=True
    )
    won = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(won) == 1
    assert all(isinstance(o, InvalidGrant) for o in outcomes if o not in won)


async def test_a_refusal_changes_nothing(db: Db, holder: Holder) -> None:
    token = await issue(db, holder)

    async def refuse(record: Any, person: Any) -> None:
        raise InvalidGrant("refused")

    with pytest.raises(InvalidGrant, match="refused"):
        await rotate(db, holder, token, accept=refuse)
    with pytest.raises(InvalidGrant, match="refused"):  # wider scope: the reason is asked
        await rotate(db, holder, token, accept=refuse, requested=["api:write"])
    async with db.hot.connection() as conn:  # no successor was left behind
        assert await conn.fetchval("SELECT count(*) FROM refresh_tokens") == 1
    await rotate(db, holder, token)  # still active


async def test_a_reuse_revokes_the_family_and_audits_or_does_nothing(
    db: Db, holder: Holder
) -> None:
    token = await issue(db, holder)
    _, successor = await rotate(db, holder, token)

    async def redis_down(_: RefreshTokenReused) -> None:
        raise ConnectionError("redis")

    with pytest.raises(ConnectionError):
        await rotate(db, holder, token, on_reuse=redis_down)
    await rotate(db, holder, successor)  # nothing was revoked
    with pytest.raises(RefreshTokenReused):
        await rotate(db, holder, token)
    async with db.sessions() as session:
        audits = await session.scalar(
            select(func.count())
            .select_from(AuditEvent)
            .where(AuditEvent.action == repo.AUDIT_REFRESH_REUSED)
        )
    assert audits == 1


async def test_a_reuse_before_the_take_back_stays_revoked(db: Db, holder: Holder) -> None:
    """The token is presented again while its rotation waits on Redis, which then fails:
    the reuse revoked the family, and the take-back must not make the token active."""
    token = await issue(db, holder)

    async def reuse_then_fail(record: Any, person: Any) -> None:
        with pytest.raises(RefreshTokenReused):
            await rotate(db, holder, token)
        raise ConnectionError("redis")

    with pytest.raises(ConnectionError):
        await rotate(db, holder, token, accept=reuse_then_fail)
    with pytest.raises(InvalidGrant, match="expired or revoked"):
        await rotate(db, holder, token)
    async with db.hot.connection() as conn:  # the successor is gone, the token revoked
        sql = "SELECT count(*), count(*) FILTER (WHERE revoked_at IS NOT NULL) FROM refresh_tokens"
        assert tuple(await conn.fetchrow(sql)) == (1, 1)


async def test_unknown_another_clients_and_expired_tokens_are_refused(
    db: Db, holder: Holder
) -> None:
    token = await issue(db, holder)
    with pytest.raises(InvalidGrant, match="invalid"):
        await rotate(db, holder, "no-such-token")
    with pytest.raises(InvalidGrant, match="invalid"):
        await rotate(db, holder, token, client_pk=uuid.uuid4())
    later = datetime.now(UTC) + timedelta(days=31)
    with pytest.raises(InvalidGrant, match="expired or revoked"):
        await rotate(db, holder, token, now=later)
    async with db.hot.connection() as conn:
        found = await repo.find_refresh_token(conn, token, holder.client_pk, later)
        assert found is not None and found[1] is False
        found = await repo.find_refresh_token(conn, token, holder.client_pk, datetime.now(UTC))
        assert found is not None and found[1] is True


async def test_revocations_count_what_they_revoke(db: Db, holder: Holder) -> None:
    token = await issue(db, holder)
    await issue(db, holder)
    now = datetime.now(UTC)
    async with db.sessions.begin() as session:
        assert await repo.revoke_by_sessions(session, ["sid-1"], now) == 2
        assert await repo.revoke_person_tokens(session, holder.user_id, now) == 0
    async with db.sessions() as session:
        assert await repo.holdings(session, holder.user_id, [holder.client_pk]) == {}
        assert await repo.revoke_token(session, token, uuid.uuid4(), now) is None
    with pytest.raises(InvalidGrant, match="expired or revoked"):
        await rotate(db, holder, token)


async def test_the_cleanup_deletes_only_what_expired_before_the_cutoff(
    db: Db, holder: Holder
) -> None:
    token = await issue(db, holder)
    async with db.sessions.begin() as session:
        swept = await repo.delete_expired_refresh_tokens(session, datetime.now(UTC), limit=10)
        assert swept.deleted == 0
        later = datetime.now(UTC) + timedelta(days=31)
        swept = await repo.delete_expired_refresh_tokens(session, later, limit=10)
        assert swept.deleted == 1
    with pytest.raises(InvalidGrant, match="invalid"):
        await rotate(db, holder, token)
