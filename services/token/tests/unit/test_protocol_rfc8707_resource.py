"""RFC 8707 resource indicators: the shape of ``resource`` and how it narrows a grant."""

from __future__ import annotations

import pytest

from token_service.protocol.rfc8707_resource import (
    MAX_RESOURCES,
    InvalidTarget,
    ResourceApi,
    parse_resources,
    resource_problem,
    select_resources,
)

ORDERS = ResourceApi(
    "https://orders.example", "RS256", frozenset({"orders:o:read", "orders:o:write"})
)
BILLING = ResourceApi("urn:billing", "ES256", frozenset({"billing:b:read"}))
EMPTY = ResourceApi("https://empty.example", "RS256", frozenset())
APIS = {api.audience: api for api in (ORDERS, BILLING, EMPTY)}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("https://orders.example", None),
        ("https://orders.example/v1?x=1", None),
        ("urn:billing", None),
        ("orders.example", "is not an absolute URI"),
        ("/relative/path", "is not an absolute URI"),
        ("https://orders.example/#frag", "has a fragment"),
        ("https://orders example", "is not an absolute URI"),
        ("https://orders.example/\x00", "is not an absolute URI"),
        ("1https://x", "is not an absolute URI"),
        ("https://" + "a" * 2050, "is longer than 2048 characters"),
    ],
)
def test_resource_problem(value: str, problem: str | None) -> None:
    assert resource_problem(value) == problem


def test_parse_resources_drops_empty_and_repeats_keeps_order() -> None:
    assert parse_resources(["urn:b", "", "https://a.example", "urn:b"]) == [
        "urn:b",
        "https://a.example",
    ]
    assert parse_resources([]) == []


def test_parse_resources_refuses_malformed_with_invalid_target() -> None:
    with pytest.raises(InvalidTarget) as caught:
        parse_resources(["https://a.example", "https://b.example#x"])
    assert caught.value.to_body() == {
        "error": "invalid_target",
        "error_description": "a resource value has a fragment",
    }


def test_parse_resources_bounds_the_count() -> None:
    values = [f"urn:r:{i}" for i in range(MAX_RESOURCES + 1)]
    with pytest.raises(InvalidTarget):
        parse_resources(values)
    assert len(parse_resources(values[:MAX_RESOURCES])) == MAX_RESOURCES


def test_select_narrows_scopes_and_audience_keeping_oidc_scopes() -> None:
    granted = ["openid", "orders:o:read", "billing:b:read", "offline_access"]
    choice = select_resources(["https://orders.example"], APIS, granted)
    assert choice.scopes == ["openid", "orders:o:read", "offline_access"]
    assert choice.audiences == ("https://orders.example",)
    assert choice.apis == (ORDERS,)


def test_select_several_resources_in_the_order_asked() -> None:
    granted = ["orders:o:read", "billing:b:read"]
    choice = select_resources(["urn:billing", "https://orders.example"], APIS, granted)
    assert choice.audiences == ("urn:billing", "https://orders.example")
    assert choice.scopes == granted


@pytest.mark.parametrize(
    ("resource", "granted"),
    [
        ("https://unknown.example", ["orders:o:read"]),  # no API has it
        ("urn:billing", ["orders:o:read", "openid"]),  # the grant holds none of its scopes
        ("https://empty.example", ["orders:o:read"]),  # an API without scopes
    ],
)
def test_select_refuses_unknown_or_unreachable(resource: str, granted: list[str]) -> None:
    with pytest.raises(InvalidTarget):
        select_resources([resource], APIS, granted)
