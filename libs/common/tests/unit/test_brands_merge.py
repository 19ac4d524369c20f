"""The effective brand (idp_common.storage.repos.brands.merge): a client's row field by
field over the provider's, the default product name, the logo URL."""

from __future__ import annotations

import uuid

import pytest

from idp_common.storage.db.models import Brand
from idp_common.storage.repos.brands import (
    DEFAULT_PRODUCT_NAME,
    BrandRead,
    is_logo_name,
    logo_name,
    merge,
)

BASE = "https://id.example"
LOGO = "brand-" + "a" * 64 + ".png"


def test_nothing_set_is_the_default_name_and_nulls() -> None:
    assert merge(None, None, BASE) == BrandRead(DEFAULT_PRODUCT_NAME, None, None, None, None)
    assert DEFAULT_PRODUCT_NAME == "Identity Provider"


def test_client_over_provider_field_by_field() -> None:
    provider = Brand(
        product_name="Provider",
        primary_color="#222222",
        terms_uri="https://p.example/terms",
        privacy_uri="https://p.example/privacy",
        logo_name=LOGO,
    )
    client = Brand(client_pk=uuid.uuid4(), product_name="Shop", privacy_uri="https://s.example/p")
    assert merge(client, provider, BASE) == BrandRead(
        product_name="Shop",
        logo_uri=f"{BASE}/media/brand/{LOGO}",
        primary_color="#222222",
        terms_uri="https://p.example/terms",
        privacy_uri="https://s.example/p",
    )
    assert merge(None, provider, BASE).product_name == "Provider"
    only_client = merge(Brand(primary_color="#0b5cad"), None, BASE)
    assert only_client.product_name == DEFAULT_PRODUCT_NAME
    assert only_client.primary_color == "#0b5cad"


def test_logo_names() -> None:
    assert logo_name("a" * 64, "png") == LOGO and is_logo_name(LOGO)
    for bad in ("brand-abc.png", "a" * 32 + ".png", LOGO + "x", "../" + LOGO, LOGO[:-3] + "svg"):
        assert not is_logo_name(bad)
    with pytest.raises(ValueError, match="logo object name"):
        logo_name("a" * 64, "svg")
