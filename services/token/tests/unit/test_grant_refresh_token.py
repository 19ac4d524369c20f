"""The refresh token grant's decisions (RFC 6749 §6, RFC 9700 §4.14.2), without HTTP or a
database: where a presented token stands, what a rotation may grant, the issued scope."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidScope
from idp_common.storage.repos.refresh_tokens import Standing, standing
from token_service.grants.rfc6749_refresh_token import (
    accept_rotation,
    issued_scopes,
    requested_scopes,
)

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_where_a_token_stands(
    make_client: Callable[..., Any], make_refresh: Callable[..., Any]
) -> None:
    client = make_client()
    token = make_refresh(client.pk)
    assert standing(None, False, client.pk) is Standing.UNKNOWN
    assert standing(token, True, make_client().pk) is Standing.UNKNOWN  # another client's
    assert standing(token, True, client.pk) is Standing.ACTIVE
    assert standing(make_refresh(client.pk, spent_at=NOW), False, client.pk) is Standing.SPENT
    revoked = make_refresh(client.pk, spent_at=NOW, revoked_at=NOW)
    assert standing(revoked, False, client.pk) is Standing.ENDED  # a revoked family: no reuse
    assert standing(token, False, client.pk) is Standing.ENDED  # expired


def test_requested_scope_may_narrow_never_widen() -> None:
    granted = ["openid", "offline_access", "api:read"]
    assert requested_scopes([], granted) == granted
    assert requested_scopes(["api:read"], granted) == ["api:read"]
    with pytest.raises(InvalidScope):
        requested_scopes(["api:write"], granted)


def test_a_rotation_speaks_for_its_person(
    make_client: Callable[..., Any],
    make_refresh: Callable[..., Any],
    make_person: Callable[..., Any],
) -> None:
    old = make_refresh(make_client().pk)
    person = make_person()
    assert accept_rotation(old, person, []) == (["openid", "offline_access", "api:read"], person)
    with pytest.raises(InvalidGrant, match="no longer able"):
        accept_rotation(old, make_person(disabled=True), [])
    with pytest.raises(InvalidGrant, match="no longer able"):
        accept_rotation(old, None, [])
    with pytest.raises(InvalidScope):
        accept_rotation(old, person, ["api:write"])


def test_a_clients_own_token_has_no_person(
    make_client: Callable[..., Any],
    make_refresh: Callable[..., Any],
    make_person: Callable[..., Any],
) -> None:
    old = make_refresh(make_client().pk, user_id=None, scope="api:read")
    assert accept_rotation(old, make_person(), ["api:read"]) == (["api:read"], None)


def test_the_issued_scope_is_bounded_by_what_client_and_person_hold_now(
    make_client: Callable[..., Any], make_person: Callable[..., Any]
) -> None:
    client = make_client(scopes=frozenset({"openid", "api:read", "api:write"}))
    scopes = ["openid", "api:read", "api:write"]
    assert issued_scopes(scopes, client, make_person(scopes=frozenset({"api:read"}))) == [
        "openid",
        "api:read",
    ]
    assert issued_scopes(scopes, client, None) == scopes  # a client's own token
