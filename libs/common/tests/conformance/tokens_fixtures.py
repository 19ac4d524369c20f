"""Fixtures of the token tables' repository contracts (refresh tokens, codes, consents,
outbox): the people fixtures' database and sessions, the hot pool beside them (a
``Database`` as the services hold one), and a client with a person."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Final

import pytest

from idp_common.storage.db.hot_pool import HotPool
from idp_common.storage.db.models import Client
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import RACERS, Sessions, new_person

make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions


@dataclass
class Db:
    """What a repository runs on (``storage.db.hot_pool.Database``)."""

    hot: HotPool
    sessions: Sessions


@pytest.fixture
async def db(fresh_database_url: str, sessions: Sessions) -> AsyncIterator[Db]:
    hot = HotPool(fresh_database_url, max_size=RACERS, timeout=10)
    try:
        yield Db(hot, sessions)
    finally:
        await hot.aclose()


@dataclass(frozen=True)
class Holder:
    client_pk: uuid.UUID
    user_id: uuid.UUID


async def new_client(sessions: Sessions) -> uuid.UUID:
    async with sessions.begin() as session:
        client = Client(
            client_id=f"app-{secrets.token_hex(4)}",
            name="App",
            type="confidential",
            grant_types=["authorization_code", "refresh_token"],
        )
        session.add(client)
        await session.flush()
        return client.id


@pytest.fixture
async def holder(sessions: Sessions) -> Holder:
    """A client and a person, committed."""
    return Holder(await new_client(sessions), await new_person(sessions))


class PersonFlags:
    """A joined read of the person: (id, disabled), None when absent."""

    columns: Final = "u.id, u.disabled"

    @staticmethod
    def parse(row: Any, start: int) -> tuple[uuid.UUID, bool] | None:
        return None if row[start] is None else (row[start], row[start + 1])


PERSON: Final = PersonFlags()
