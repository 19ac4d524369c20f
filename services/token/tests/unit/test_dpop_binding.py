"""Which clients need a DPoP proof and which refresh tokens are bound to its key
(``token_service.dpop``; RFC 9449 §5, §5.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from idp_common.protocol.rfc6749_errors import InvalidGrant
from token_service.dpop import (
    check_code_binding,
    check_refresh_binding,
    refresh_jkt,
    requires_dpop,
)


def test_a_proof_is_required_by_the_client_property_or_the_fapi2_profile(
    make_client: Callable[..., Any],
) -> None:
    assert not requires_dpop(make_client())
    assert requires_dpop(make_client(dpop_bound_access_tokens=True))
    assert requires_dpop(make_client(security_profile="fapi2"))


def test_only_a_public_clients_refresh_token_is_bound(make_client: Callable[..., Any]) -> None:
    assert refresh_jkt(make_client(type="public"), "jkt-1") == "jkt-1"
    assert refresh_jkt(make_client(type="public"), None) is None
    assert refresh_jkt(make_client(), "jkt-1") is None


def test_a_bound_refresh_token_needs_the_same_key() -> None:
    check_refresh_binding(None, None)
    check_refresh_binding(None, "any")
    check_refresh_binding("jkt-1", "jkt-1")
    for proved in (None, "jkt-2", "jkt-1 "):
        with pytest.raises(InvalidGrant, match="another DPoP key"):
            check_refresh_binding("jkt-1", proved)


def test_a_code_requested_with_dpop_jkt_needs_that_key() -> None:
    check_code_binding(None, None)
    check_code_binding("jkt-1", "jkt-1")
    for proved in (None, "jkt-2"):
        with pytest.raises(InvalidGrant, match="another DPoP key"):
            check_code_binding("jkt-1", proved)
