"""Contract of :mod:`idp_common.storage.repos.standing` against Postgres: what a token stands
on as the tables hold it now. A person: present and enabled, and when their credentials last
changed (``mark_credentials_changed``: the transaction's time, the profile's ``updated_at``
untouched). A client: present, its ``disabled`` flag, the scopes it holds now; an id that
names none (or holds NUL) is None."""

from __future__ import annotations

import time
import uuid

import pytest

from idp_common.storage.repos import clients, users
from idp_common.storage.repos.client_shapes import ClientSettings
from idp_common.storage.repos.standing import client_standing, person_standing
from libs.common.tests.conformance import tokens_fixtures
from libs.common.tests.conformance.people_fixtures import new_person
from libs.common.tests.conformance.tokens_fixtures import Db

pytestmark = pytest.mark.integration
make_database = tokens_fixtures.make_database
fresh_database_url = tokens_fixtures.fresh_database_url
sessions = tokens_fixtures.sessions
db = tokens_fixtures.db

APP = ClientSettings(
    name="App",
    redirect_uris=["https://app.test/callback"],
    post_logout_redirect_uris=[],
    backchannel_logout_uri=None,
    grant_types=["authorization_code"],
    skip_consent=False,
)


async def test_a_persons_standing_and_their_last_credential_change(db: Db) -> None:
    person = await new_person(db.sessions)
    async with db.hot.connection() as conn:
        fresh = await person_standing(conn, person)
        absent = await person_standing(conn, uuid.uuid4())
    assert (fresh.active, fresh.credentials_changed_at) == (True, None)
    assert (absent.active, absent.credentials_changed_at) == (False, None)
    async with db.sessions() as session:
        before = await users.get_user(session, person)
    assert before is not None
    async with db.sessions.begin() as session:
        await users.mark_credentials_changed(session, person)
    async with db.hot.connection() as conn:
        changed = await person_standing(conn, person)
    assert changed.active is True
    assert changed.credentials_changed_at is not None
    assert abs(changed.credentials_changed_at - time.time()) < 60
    async with db.sessions() as session:
        after = await users.get_user(session, person)
    assert after is not None and after.updated_at == before.updated_at  # not a profile change
    async with db.sessions.begin() as session:
        await users.update_user(session, person, {"disabled": True})
    async with db.hot.connection() as conn:
        assert (await person_standing(conn, person)).active is False


async def test_a_clients_standing_follows_its_row_and_scopes(db: Db) -> None:
    async with db.sessions.begin() as session:
        created = await clients.create_client(session, "confidential", APP)
        await clients.set_client_scopes(session, created.client_id, ["openid", "profile"])
    async with db.hot.connection() as conn:
        found = await client_standing(conn, created.client_id)
        assert await client_standing(conn, "no-such-client") is None
        assert await client_standing(conn, "nul\x00client") is None
    assert found is not None
    assert (found.disabled, found.scopes) == (False, frozenset({"openid", "profile"}))
    async with db.sessions.begin() as session:
        await clients.set_client_scopes(session, created.client_id, ["openid"])
        await clients.update_client(
            session, created.client_id, {"disabled": True}, check=lambda *_: None
        )
    async with db.hot.connection() as conn:
        cut = await client_standing(conn, created.client_id)
    assert cut is not None and (cut.disabled, cut.scopes) == (True, frozenset({"openid"}))
    async with db.sessions.begin() as session:
        await clients.delete_client(session, created.client_id)
    async with db.hot.connection() as conn:
        assert await client_standing(conn, created.client_id) is None
