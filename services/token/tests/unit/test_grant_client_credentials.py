"""The client credentials grant's decision (RFC 6749 §4.4; docs/design.md §2), without HTTP or a
database: which scopes a client gets for itself."""

from __future__ import annotations

import pytest

from idp_common.protocol.rfc6749_errors import InvalidScope
from token_service.grants.rfc6749_client_credentials import machine_scopes

HELD = frozenset({"openid", "api:read", "api:write"})


def test_omitted_means_every_api_scope_of_the_client() -> None:
    assert machine_scopes([], HELD) == ["api:read", "api:write"]


def test_requested_scopes_are_bounded_by_the_client_and_api_only() -> None:
    assert machine_scopes(["api:write", "openid", "api:admin"], HELD) == ["api:write"]


def test_nothing_left_is_invalid_scope() -> None:
    with pytest.raises(InvalidScope):
        machine_scopes(["openid"], HELD)
    with pytest.raises(InvalidScope):
        machine_scopes([], frozenset({"openid"}))
