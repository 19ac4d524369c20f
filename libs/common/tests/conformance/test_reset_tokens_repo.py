"""Contract of :mod:`idp_common.storage.repos.reset_tokens` against Postgres: only a digest
is stored, a token is live for 30 minutes and spent at most once."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.oidc_core_claims import digest
from idp_common.storage.repos import reset_tokens as repo
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import Sessions, race

pytestmark = pytest.mark.integration
# The fixtures, by the names the tests ask for.
make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions
person = people_fixtures.person
NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


async def new_token(sessions: Sessions, person: uuid.UUID) -> str:
    async with sessions.begin() as session:
        return await repo.create_reset_token(session, person, now=NOW)


async def test_only_the_digest_is_stored_and_the_token_lives_30_minutes(
    sessions: Sessions, person: uuid.UUID
) -> None:
    token = await new_token(sessions, person)
    async with sessions() as session:
        query = text("SELECT token_digest, user_id FROM password_reset_tokens")
        assert (await session.execute(query)).all() == [(digest(token), person)]
        later = NOW + timedelta(seconds=repo.RESET_TOKEN_SECONDS)
        assert await repo.find_reset_token(session, token, now=later - timedelta(seconds=1)) == (
            person
        )
        assert await repo.find_reset_token(session, token, now=later) is None
        assert await repo.find_reset_token(session, "not-ours", now=NOW) is None


async def test_a_token_is_spent_once_under_concurrent_confirmations(
    sessions: Sessions, person: uuid.UUID
) -> None:
    token = await new_token(sessions, person)

    async def confirm(session: AsyncSession, _: int) -> uuid.UUID | None:
        return await repo.consume_reset_token(session, token, now=NOW)

    outcomes = await race(sessions, confirm)
    assert outcomes.count(person) == 1
    assert all(outcome in (person, None) for outcome in outcomes)
    async with sessions() as session:
        assert await repo.find_reset_token(session, token, now=NOW) is None


async def test_an_expired_token_cannot_be_spent(sessions: Sessions, person: uuid.UUID) -> None:
    token = await new_token(sessions, person)
    expired = NOW + timedelta(seconds=repo.RESET_TOKEN_SECONDS + 1)
    async with sessions.begin() as session:
        assert await repo.consume_reset_token(session, token, now=expired) is None


async def test_spending_the_tokens_of_a_person_ends_every_older_mail(
    sessions: Sessions, person: uuid.UUID
) -> None:
    tokens = [await new_token(sessions, person) for _ in range(3)]
    async with sessions.begin() as session:
        assert await repo.consume_reset_token(session, tokens[0], now=NOW) == person
        assert await repo.spend_reset_tokens_of(session, person, now=NOW) == 2
        assert await repo.spend_reset_tokens_of(session, person, now=NOW) == 0
        for token in tokens:
            assert await repo.find_reset_token(session, token, now=NOW) is None
