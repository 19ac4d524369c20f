"""Contract of :mod:`idp_common.storage.repos.consents` against Postgres: a consent only grows
(concurrent approvals all count) until it is withdrawn, once."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.repos import consents as repo
from libs.common.tests.conformance import tokens_fixtures
from libs.common.tests.conformance.people_fixtures import RACERS, race
from libs.common.tests.conformance.tokens_fixtures import Holder, Sessions

pytestmark = pytest.mark.integration
make_database = tokens_fixtures.make_database
fresh_database_url = tokens_fixtures.fresh_database_url
sessions = tokens_fixtures.sessions
holder = tokens_fixtures.holder


async def test_concurrent_approvals_all_count(sessions: Sessions, holder: Holder) -> None:
    async def approve(session: AsyncSession, index: int) -> None:
        await repo.grant_consent(session, holder.user_id, holder.client_pk, [f"s{index}", "openid"])

    assert not [o for o in await race(sessions, approve) if isinstance(o, BaseException)]
    async with sessions() as session:
        scopes = await repo.get_consented_scopes(session, holder.user_id, holder.client_pk)
        found = await repo.consents_of(session, holder.user_id, [holder.client_pk])
    assert scopes == {"openid", *(f"s{i}" for i in range(RACERS))}
    assert found[holder.client_pk][1] == sorted(scopes)


async def test_a_consent_is_withdrawn_once(sessions: Sessions, holder: Holder) -> None:
    async with sessions.begin() as session:
        await repo.grant_consent(session, holder.user_id, holder.client_pk, ["openid"])

    async def withdraw(session: AsyncSession, _: int) -> bool:
        return await repo.withdraw_consent(session, holder.user_id, holder.client_pk)

    assert sorted(await race(sessions, withdraw), key=str) == [False] * (RACERS - 1) + [True]
    async with sessions() as session:
        assert await repo.get_consented_scopes(session, holder.user_id, holder.client_pk) == set()
