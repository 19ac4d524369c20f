"""Contract of :mod:`idp_common.storage.repos.apis` against Postgres: names, audiences and
scope values unique even under racing creates, the value shaped by its API's name, the
provider's own API and permissions and the standard scopes kept, a deleted API taking its
scopes and their grants with it, and the operator tool's form idempotent."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, InvalidArgument, NotFound
from idp_common.protocol.constants import ADMIN_SCOPES, IDP_API_NAME
from idp_common.storage.db.models import RoleScope, Scope
from idp_common.storage.repos import apis, roles
from idp_common.storage.repos.apis import ApiRead, ScopeRead
from libs.common.tests.conformance import catalogue_fixtures as fx
from libs.common.tests.conformance.catalogue_fixtures import Sessions

pytestmark = pytest.mark.integration
make_database, fresh_database_url, catalogue = fx.make_database, fx.fresh_database_url, fx.catalogue


async def shop_id(sessions: Sessions) -> str:
    async with sessions() as session:
        page = await apis.list_apis(session, limit=10, cursor=None)
    return next(str(a.id) for a in page.items if a.name == "shop")


async def test_of_racing_creates_of_one_name_or_audience_one_wins(catalogue: Sessions) -> None:
    async def register(session: AsyncSession, index: int) -> ApiRead:
        return await apis.create_api(session, name="billing", audience=f"https://b{index}.test")

    outcomes = await fx.in_parallel(catalogue, register)
    assert fx.loser_codes(outcomes, ApiRead) == {"admin.api_name_taken"}

    async def same_audience(session: AsyncSession, index: int) -> ApiRead:
        return await apis.create_api(session, name=f"n{index}", audience="https://same.test")

    outcomes = await fx.in_parallel(catalogue, same_audience)
    assert fx.loser_codes(outcomes, ApiRead) == {"admin.api_audience_taken"}


async def test_of_racing_creates_of_one_scope_value_one_wins(catalogue: Sessions) -> None:
    api = await shop_id(catalogue)

    async def add(session: AsyncSession, _: int) -> ScopeRead:
        return await apis.create_scope(session, api, value="shop:carts:read", description="x")

    outcomes = await fx.in_parallel(catalogue, add)
    assert fx.loser_codes(outcomes, ScopeRead) == {"admin.scope_value_taken"}


async def test_a_scope_value_begins_with_its_api_which_then_keeps_its_name(
    catalogue: Sessions,
) -> None:
    api = await shop_id(catalogue)
    async with catalogue.begin() as session:
        with pytest.raises(InvalidArgument):
            await apis.create_scope(session, api, value="other:carts:read", description="x")
    async with catalogue.begin() as session:
        with pytest.raises(Conflict) as refused:
            await apis.update_api(session, api, name="store", audience=None)
    assert refused.value.code == "admin.api_name_in_use"
    async with catalogue.begin() as session:
        read, changed = await apis.update_api(
            session, api, name="shop", audience="https://new.test"
        )
    assert changed == ["audience"] and read.audience == "https://new.test"


async def test_the_provider_api_its_permissions_and_standard_scopes_are_kept(
    catalogue: Sessions,
) -> None:
    async with catalogue.begin() as session:
        await apis.ensure_api(
            session,
            name=IDP_API_NAME,
            audience="https://idp.test/api",
            scopes={ADMIN_SCOPES[0]: "x"},
        )
    async with catalogue() as session:
        page = await apis.list_apis(session, limit=10, cursor=None)
        idp = next(str(a.id) for a in page.items if a.name == IDP_API_NAME)
        ids = {
            value: str(key)
            for value, key in await session.execute(
                select(Scope.value, Scope.id).where(Scope.value.in_([ADMIN_SCOPES[0], "openid"]))
            )
        }
    attempts = [
        lambda s: apis.delete_api(s, idp),
        lambda s: apis.update_api(s, idp, name=None, audience="https://elsewhere.test"),
        lambda s: apis.delete_scope(s, ids[ADMIN_SCOPES[0]]),
        lambda s: apis.delete_scope(s, ids["openid"]),
        lambda s: apis.update_scope(s, ids["openid"], description="changed"),
    ]
    for attempt in attempts:
        async with catalogue.begin() as session:
            with pytest.raises(Conflict) as refused:
                await attempt(session)
        assert refused.value.code in ("admin.api_protected", "admin.scope_protected")


async def test_deleting_an_api_takes_its_scopes_and_their_grants(catalogue: Sessions) -> None:
    async with catalogue.begin() as session:
        role = await roles.create_role(session, name="buyer", description="")
        await roles.set_role_scopes(session, str(role.id), list(fx.SHOP_SCOPES))
        await apis.delete_api(session, await shop_id(catalogue))
    async with catalogue() as session:
        left = await session.scalar(select(func.count()).select_from(RoleScope))
        shop = await session.scalar(select(func.count()).where(Scope.value.like("shop:%")))
    assert left == 0 and shop == 0
    async with catalogue() as session:
        for missing in (str(uuid.uuid4()), "not-a-uuid"):
            with pytest.raises(NotFound):
                await apis.get_api(session, missing)


async def test_the_operator_form_is_idempotent_and_follows_the_audience(
    catalogue: Sessions,
) -> None:
    added = []
    for audience in ("https://shop.test", "https://shop.example"):
        async with catalogue.begin() as session:
            added.append(
                await apis.ensure_api(
                    session,
                    name="shop",
                    audience=audience,
                    scopes={**fx.SHOP_SCOPES, "shop:x:y": "z"},
                )
            )
    assert added == [1, 0]
    async with catalogue() as session:
        read = await apis.get_api(session, await shop_id(catalogue))
    assert read.audience == "https://shop.example"
