"""Contract of :mod:`idp_common.storage.repos.client_lookups` against Postgres: a person is
connected to a client by a remembered consent or by an active refresh token (not a spent,
revoked or expired one, nor another person's), connections paged by ``client_id``; a
deleted client absent from every read, even from a transaction already open; back-channel
URIs only of the clients that registered one."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from idp_common.storage.db.models import Client, RefreshToken
from idp_common.storage.repos import client_lookups as repo
from idp_common.storage.repos import clients, consents, refresh_tokens
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import Sessions, new_person
from libs.common.tests.conformance.shared_fixtures import add_client

pytestmark = pytest.mark.integration
make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions
person = people_fixtures.person


async def pk_of(sessions: Sessions, client_id: str) -> uuid.UUID:
    async with sessions() as session:
        found = await session.scalar(select(Client.id).where(Client.client_id == client_id))
    assert found is not None
    return found


async def consent(sessions: Sessions, person: uuid.UUID, client_id: str) -> None:
    client_pk = await pk_of(sessions, client_id)
    async with sessions.begin() as session:
        await consents.grant_consent(session, person, client_pk, ["openid"])


async def token(
    sessions: Sessions, person: uuid.UUID, client_id: str, *, age: timedelta = timedelta()
) -> uuid.UUID:
    """Issue a refresh token of ``person`` to the client ``age`` ago; the client's pk."""
    client_pk = await pk_of(sessions, client_id)
    issued = datetime.now(UTC) - age
    async with sessions.begin() as session:
        await refresh_tokens.issue_refresh_token(
            session,
            family_id=uuid.uuid4(),
            grant_id=None,
            parent_id=None,
            client_pk=client_pk,
            user_id=person,
            scope="openid offline_access",
            session_sid=None,
            auth_time=issued,
            acr=None,
            amr=["pwd"],
            now=issued,
        )
    return client_pk


async def connections(sessions: Sessions, person: uuid.UUID, limit: int = 50) -> list[str]:
    async with sessions() as session:
        found, _ = await repo.connected_clients(session, person, limit=limit, cursor=None)
    return [c.client_id for c in found]


async def test_a_consent_or_an_active_token_connects(sessions: Sessions) -> None:
    ada, bob = await new_person(sessions), await new_person(sessions)
    consented, holding, spent, revoked, expired, bobs, idle = [
        await add_client(sessions) for _ in range(7)
    ]
    await consent(sessions, ada, consented)
    await token(sessions, ada, holding)
    spent_pk = await token(sessions, ada, spent)
    revoked_pk = await token(sessions, ada, revoked)
    await token(sessions, ada, expired, age=timedelta(days=400))
    await consent(sessions, bob, bobs)
    await token(sessions, bob, holding)
    async with sessions.begin() as session:
        await session.execute(
            update(RefreshToken)
            .where(RefreshToken.client_pk == spent_pk)
            .values(spent_at=datetime.now(UTC))
        )
        now = datetime.now(UTC)
        await refresh_tokens.revoke_person_tokens(session, ada, now, client_pk=revoked_pk)
    assert await connections(sessions, ada) == sorted([consented, holding])
    assert await connections(sessions, bob) == sorted([bobs, holding])
    async with sessions() as session:
        for client_id, connected in (
            (consented, True),
            (holding, True),
            *((c, False) for c in (spent, revoked, expired, bobs, idle, "no-such-client")),
        ):
            found = await repo.connected_client_pk(session, ada, client_id)
            expected = await pk_of(sessions, client_id) if connected else None
            assert found == expected, client_id
        page, _ = await repo.connected_clients(session, ada, limit=5, cursor=None)
    (read,) = [c for c in page if c.client_id == holding]
    assert (read.pk, read.name, read.skip_consent) == (
        await pk_of(sessions, holding),
        f"App {holding}",
        False,
    )


async def test_connections_page_by_client_id(sessions: Sessions, person: uuid.UUID) -> None:
    connected = sorted([await add_client(sessions) for _ in range(5)])
    for client_id in connected:
        await consent(sessions, person, client_id)
    await add_client(sessions)  # not connected
    pages, cursor = [], None
    async with sessions() as session:
        while True:
            found, cursor = await repo.connected_clients(session, person, limit=2, cursor=cursor)
            pages.append([c.client_id for c in found])
            if cursor is None:
                break
    assert pages == [connected[:2], connected[2:4], connected[4:]]


async def test_a_deleted_client_is_absent_from_every_read(
    sessions: Sessions, person: uuid.UUID
) -> None:
    kept = await add_client(sessions, backchannel_logout_uri="https://kept.test/bc")
    gone = await add_client(sessions, backchannel_logout_uri="https://gone.test/bc")
    for client_id in (kept, gone):
        await consent(sessions, person, client_id)
        await token(sessions, person, client_id)
    async with sessions() as reader:  # a transaction open before the delete
        assert await repo.client_names(reader, {kept, gone}) == {
            kept: f"App {kept}",
            gone: f"App {gone}",
        }
        async with sessions.begin() as session:
            await clients.delete_client(session, gone)
        assert await repo.connected_client_pk(reader, person, gone) is None
        found, _ = await repo.connected_clients(reader, person, limit=5, cursor=None)
        assert [c.client_id for c in found] == [kept]
        assert await repo.client_names(reader, {kept, gone}) == {kept: f"App {kept}"}
        assert await repo.backchannel_uris(reader, [kept, gone]) == {kept: "https://kept.test/bc"}


async def test_only_registered_backchannel_uris_are_answered(sessions: Sessions) -> None:
    registered = await add_client(sessions, backchannel_logout_uri="https://rp.test/logout")
    other = await add_client(sessions, backchannel_logout_uri="https://other.test/logout")
    none, empty = await add_client(sessions), await add_client(sessions, backchannel_logout_uri="")
    async with sessions() as session:
        uris = await repo.backchannel_uris(session, [registered, none, empty, "no-such-client"])
        assert uris == {registered: "https://rp.test/logout"}
        assert await repo.backchannel_uris(session, (other,)) == {
            other: "https://other.test/logout"
        }
        assert await repo.backchannel_uris(session, []) == {}
        assert await repo.client_names(session, set()) == {}
        assert await repo.client_names(session, {none, "no-such-client"}) == {none: f"App {none}"}
