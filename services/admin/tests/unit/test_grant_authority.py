"""Unit tests of admin_service.protocol.grant_authority (docs/security.md, attack 8)."""

from __future__ import annotations

import pytest

from admin_service.protocol.grant_authority import (
    admin_scopes_of,
    is_administrator,
    scopes_not_held,
)
from idp_common.protocol.constants import ADMIN_SCOPES, SELF_SERVICE_SCOPES

USERS_WRITE = ("idp:users:write",)


@pytest.mark.parametrize(
    ("given", "held", "refused"),
    [
        pytest.param(["idp:roles:write"], USERS_WRITE, ["idp:roles:write"], id="escalation"),
        pytest.param(["idp:users:write"], USERS_WRITE, [], id="held"),
        pytest.param([], USERS_WRITE, [], id="nothing-given"),
        pytest.param(
            ["idp:audit:read", "idp:audit:read", "idp:apis:write", "idp:users:write"],
            USERS_WRITE,
            ["idp:apis:write", "idp:audit:read"],
            id="sorted-once",
        ),
        pytest.param(["openid", "profile", "email", "offline_access"], (), [], id="oidc-free"),
        pytest.param(list(SELF_SERVICE_SCOPES), SELF_SERVICE_SCOPES, [], id="self-service"),
        pytest.param(["hr:badge:read"], USERS_WRITE, ["hr:badge:read"], id="resource-api"),
        pytest.param(["hr:badge:read"], ("idp:apis:write",), [], id="resource-api-by-its-owner"),
        pytest.param(
            ["idp:users:write"],
            ("idp:apis:write",),
            ["idp:users:write"],
            id="apis-owner-not-provider-scopes",
        ),
        pytest.param(list(ADMIN_SCOPES), ADMIN_SCOPES, [], id="full-administrator"),
    ],
)
def test_scopes_not_held(given: list[str], held: tuple[str, ...], refused: list[str]) -> None:
    assert scopes_not_held(given, frozenset(held)) == refused


def test_administrators() -> None:
    assert is_administrator(["openid", "idp:audit:read"])
    assert is_administrator(["idp:profile-fields:write"])
    assert not is_administrator([*SELF_SERVICE_SCOPES, "openid", "hr:badge:read"])
    assert admin_scopes_of(["idp:users:write", "idp:account:read"]) == {"idp:users:write"}
