"""RFC 8707 applied to an authorization: what ``resource`` makes of ``aud``, the scope and
the signing algorithm (``token_service.resource_indicators.narrow_authorization``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from token_service.issuance import Authorization
from token_service.protocol.rfc8707_resource import InvalidTarget, ResourceApi
from token_service.resource_indicators import Targets, narrow_authorization

PROVIDER = "https://id.example/api"
ORDERS = ResourceApi("https://orders.example", "ES256", frozenset({"orders:o:read"}))
BILLING = ResourceApi("urn:billing", "PS256", frozenset({"billing:b:read"}))
TARGETS = {api.audience: api for api in (ORDERS, BILLING)}


def _auth(scopes: list[str], user: Any = None) -> Authorization:
    return Authorization(
        subject="s",
        client_id="app",
        scopes=scopes,
        audiences=[PROVIDER, ORDERS.audience, BILLING.audience],
        user=user,
    )


def test_without_resource_nothing_changes() -> None:
    auth = _auth(["orders:o:read"])
    assert narrow_authorization(auth, None, PROVIDER) is auth


def test_a_machine_token_is_for_the_resource_alone_signed_with_its_algorithm() -> None:
    auth = _auth(["orders:o:read", "billing:b:read"])
    narrowed = narrow_authorization(auth, Targets([ORDERS.audience], TARGETS), PROVIDER)
    assert narrowed.audiences == (ORDERS.audience,)
    assert narrowed.scopes == ["orders:o:read"]
    assert narrowed.access_token_alg == "ES256"


def test_two_apis_of_different_algorithms_fall_back_to_rs256() -> None:
    auth = _auth(["orders:o:read", "billing:b:read"])
    both = Targets([BILLING.audience, ORDERS.audience], TARGETS)
    narrowed = narrow_authorization(auth, both, PROVIDER)
    assert narrowed.audiences == (BILLING.audience, ORDERS.audience)
    assert narrowed.access_token_alg == "RS256"


def test_a_person_token_with_openid_keeps_the_provider_audience_first(
    make_person: Callable[..., Any],
) -> None:
    person = make_person().claims
    with_openid = _auth(["openid", "orders:o:read", "billing:b:read"], user=person)
    narrowed = narrow_authorization(with_openid, Targets([ORDERS.audience], TARGETS), PROVIDER)
    assert narrowed.audiences == [PROVIDER, ORDERS.audience]
    assert narrowed.scopes == ["openid", "orders:o:read"]
    without = _auth(["offline_access", "orders:o:read"], user=person)
    narrowed = narrow_authorization(without, Targets([ORDERS.audience], TARGETS), PROVIDER)
    assert narrowed.audiences == (ORDERS.audience,)


def test_a_resource_the_grant_does_not_reach_is_invalid_target() -> None:
    with pytest.raises(InvalidTarget):
        narrow_authorization(
            _auth(["orders:o:read"]), Targets([BILLING.audience], TARGETS), PROVIDER
        )
