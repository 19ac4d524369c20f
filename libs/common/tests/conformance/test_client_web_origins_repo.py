"""Contract of the allowed web origins in :mod:`idp_common.storage.repos.clients` against
Postgres: stored and read back as given, the redirect URIs' origins when none
are listed, and the set every client allows (what a CORS preflight is answered by)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from idp_common.storage.repos import clients
from idp_common.storage.repos.client_shapes import ClientSettings
from libs.common.tests.conformance import catalogue_fixtures as fx
from libs.common.tests.conformance.catalogue_fixtures import Sessions

pytestmark = pytest.mark.integration
make_database, fresh_database_url, catalogue = fx.make_database, fx.fresh_database_url, fx.catalogue

SPA = ClientSettings(
    name="Shop SPA",
    redirect_uris=["https://shop.test/callback", "com.shop.app:/cb"],
    post_logout_redirect_uris=[],
    backchannel_logout_uri=None,
    grant_types=["authorization_code"],
    skip_consent=False,
)


async def test_listed_origins_are_kept_and_replace_the_default(catalogue: Sessions) -> None:
    listed = replace(SPA, allowed_web_origins=["https://app.shop.test", "http://localhost:5173"])
    async with catalogue.begin() as session:
        created = await clients.create_client(session, "public", listed)
        default = await clients.create_client(session, "public", SPA)
    assert created.allowed_web_origins == ["https://app.shop.test", "http://localhost:5173"]
    assert default.allowed_web_origins == []
    async with catalogue() as session:
        record = await clients.get_client(session, created.client_id)
        fallback = await clients.get_client(session, default.client_id)
        read = await clients.read_client(session, default.client_id)
        every = await clients.all_web_origins(session)
    assert record is not None and fallback is not None
    assert record.web_origins == ("https://app.shop.test", "http://localhost:5173")
    assert fallback.allowed_web_origins == ()
    assert fallback.web_origins == ("https://shop.test",)  # the private scheme gives none
    assert read.allowed_web_origins == []  # the read shows what is stored
    assert every >= {"https://app.shop.test", "http://localhost:5173", "https://shop.test"}


async def test_an_update_replaces_the_list(catalogue: Sessions) -> None:
    async with catalogue.begin() as session:
        created = await clients.create_client(session, "public", SPA)
    async with catalogue.begin() as session:
        updated, changed = await clients.update_client(
            session,
            created.client_id,
            {"allowed_web_origins": ["https://other.shop.test"]},
            check=lambda _type, _settings: None,
        )
    assert changed == ["allowed_web_origins"]
    assert updated.allowed_web_origins == ["https://other.shop.test"]
    async with catalogue() as session:
        every = await clients.all_web_origins(session)
    assert "https://other.shop.test" in every
