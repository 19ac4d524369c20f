"""Contract of :mod:`idp_common.storage.repos.clients` against Postgres: one row per
``client_id`` even under racing creates, exactly one secret per confidential client even
under racing rotations, scope sets replaced whole, the console kept, a deleted client
taking its secret and scopes with it, and the operator tool's form idempotent."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, FieldError, InvalidArgument, NotFound
from idp_common.protocol.oidc_core_claims import digest
from idp_common.storage.db.models import ClientScope, ClientSecret
from idp_common.storage.repos import clients
from idp_common.storage.repos.client_shapes import ClientCreated, ClientSettings, SecretRotated
from libs.common.tests.conformance import catalogue_fixtures as fx
from libs.common.tests.conformance.catalogue_fixtures import Sessions

pytestmark = pytest.mark.integration
make_database, fresh_database_url, catalogue = fx.make_database, fx.fresh_database_url, fx.catalogue

WEB = ClientSettings(
    name=" Shop web ",
    redirect_uris=["https://shop.test/callback"],
    post_logout_redirect_uris=[],
    backchannel_logout_uri=None,
    grant_types=["authorization_code"],
    skip_consent=False,
)


async def create(sessions: Sessions, client_type: str = "confidential") -> ClientCreated:
    async with sessions.begin() as session:
        return await clients.create_client(session, client_type, WEB)  # type: ignore[arg-type]


async def count(sessions: Sessions, column: object) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count(column))) or 0)  # type: ignore[call-overload]


async def test_of_racing_creates_of_one_client_id_one_wins(catalogue: Sessions) -> None:
    async def register(session: AsyncSession, _: int) -> ClientCreated:
        return await clients.create_client(session, "public", WEB, client_id="shop-web")

    outcomes = await fx.in_parallel(catalogue, register)
    assert fx.loser_codes(outcomes, ClientCreated) == {"admin.client_id_taken"}
    async with catalogue() as session:
        assert (await clients.read_client(session, "shop-web")).name == "Shop web"


async def test_a_confidential_client_has_one_secret_stored_as_its_digest(
    catalogue: Sessions,
) -> None:
    created = await create(catalogue)
    assert created.client_secret
    async with catalogue() as session:
        record = await clients.get_client(session, created.client_id)
    assert record is not None and record.is_confidential
    assert record.secret_digest == digest(created.client_secret)
    public = await create(catalogue, "public")
    assert public.client_secret is None
    async with catalogue.begin() as session:
        with pytest.raises(Conflict) as refused:
            await clients.rotate_secret(session, public.client_id)
    assert refused.value.code == "admin.client_public"


async def test_racing_rotations_leave_exactly_one_secret_the_last(catalogue: Sessions) -> None:
    client_id = (await create(catalogue)).client_id

    async def rotate(session: AsyncSession, _: int) -> SecretRotated:
        return await clients.rotate_secret(session, client_id)

    outcomes = await fx.in_parallel(catalogue, rotate)
    secrets = [o.client_secret for o in outcomes if isinstance(o, SecretRotated)]
    assert len(secrets) == len(outcomes)
    assert await count(catalogue, ClientSecret.client_pk) == 1
    async with catalogue() as session:
        record = await clients.get_client(session, client_id)
    assert record is not None
    assert any(digest(s) == record.secret_digest for s in secrets)


async def test_racing_scope_replaces_leave_one_whole_set(catalogue: Sessions) -> None:
    client_id = (await create(catalogue)).client_id
    choices = [sorted(fx.SHOP_SCOPES)[:1], sorted(fx.SHOP_SCOPES)[1:], ["openid", "profile"]]

    async def replace(session: AsyncSession, index: int) -> object:
        return await clients.set_client_scopes(session, client_id, choices[index % 3])

    assert not [o for o in await fx.in_parallel(catalogue, replace) if isinstance(o, Exception)]
    async with catalogue() as session:
        final = (await clients.read_client(session, client_id)).scopes
    assert final in [sorted(c) for c in choices]


async def test_an_unknown_scope_changes_nothing_and_is_named(catalogue: Sessions) -> None:
    client_id = (await create(catalogue)).client_id
    async with catalogue.begin() as session:
        _, added = await clients.set_client_scopes(session, client_id, ["openid", "openid"])
    assert added == ["openid"]
    async with catalogue.begin() as session:
        with pytest.raises(InvalidArgument) as refused:
            await clients.set_client_scopes(session, client_id, ["profile", "shop:nothing:x"])
    assert refused.value.errors == [FieldError("scopes[1]", "unknown scope")]
    async with catalogue() as session:
        assert await clients.client_scope_values(session, client_id) == {"openid"}


async def test_an_update_is_checked_whole_under_the_lock(catalogue: Sessions) -> None:
    client_id = (await create(catalogue)).client_id
    seen: list[ClientSettings] = []

    def refuse(client_type: str, merged: ClientSettings) -> None:
        seen.append(merged)
        raise InvalidArgument("no")

    async with catalogue.begin() as session:
        with pytest.raises(InvalidArgument):
            await clients.update_client(session, client_id, {"skip_consent": True}, check=refuse)
    assert seen[0].skip_consent and seen[0].redirect_uris == WEB.redirect_uris
    async with catalogue.begin() as session:
        read, changed = await clients.update_client(
            session, client_id, {"skip_consent": False, "name": "Shop"}, check=lambda *_: None
        )
    assert changed == ["name"] and read.name == "Shop" and not read.skip_consent


async def test_deleting_takes_secret_and_scopes_and_keeps_the_console(catalogue: Sessions) -> None:
    client_id = (await create(catalogue)).client_id
    async with catalogue.begin() as session:
        await clients.set_client_scopes(session, client_id, ["openid"])
        await clients.delete_client(session, client_id)
    assert await count(catalogue, ClientSecret.client_pk) == 0
    assert await count(catalogue, ClientScope.client_pk) == 0
    async with catalogue() as session:
        assert await clients.get_client(session, client_id) is None
        with pytest.raises(NotFound):
            await clients.read_client(session, client_id)
    async with catalogue.begin() as session:
        await clients.ensure_client(session, clients.CONSOLE_CLIENT_ID, "public", WEB)
    async with catalogue.begin() as session:
        with pytest.raises(Conflict) as refused:
            await clients.delete_client(session, clients.CONSOLE_CLIENT_ID)
    assert refused.value.code == "admin.client_protected"


async def test_the_operator_form_is_idempotent_and_follows_the_uris(catalogue: Sessions) -> None:
    moved = ClientSettings(**{**WEB.__dict__, "redirect_uris": ["https://shop.test/back"]})
    linked = []
    for settings in (WEB, WEB, moved):
        async with catalogue.begin() as session:
            linked.append(
                await clients.ensure_client(
                    session,
                    "seeded",
                    "confidential",
                    settings,
                    scopes=["openid", *fx.SHOP_SCOPES],
                    secret_digest=digest("s3cret"),
                )
            )
    assert linked == [1 + len(fx.SHOP_SCOPES), 0, 0]
    async with catalogue() as session:
        record = await clients.get_client(session, "seeded")
    assert record is not None and record.redirect_uris == ("https://shop.test/back",)
    assert record.secret_digest == digest("s3cret")
