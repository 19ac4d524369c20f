"""The device grant's decisions (RFC 8628 §3.4), without HTTP, Redis or a database: what an
approval grants now, the refresh token's rule shared with the code grant, the origin."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from idp_common.protocol.constants import GRANT_TYPE_DEVICE_CODE
from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.protocol.rfc8628_device import DeviceApproval
from token_service.grants import GRANTS
from token_service.grants.rfc6749_authorization_code import refresh_scope
from token_service.grants.rfc8628_device_code import DeviceCodeGrant, DeviceOrigin, approved_scopes

APPROVAL = DeviceApproval(
    user_id="3f0c1c9e-5d7e-4b7e-9d43-1d2b7f1f0a11",
    scopes=["openid", "offline_access", "api:read", "api:write"],
    auth_time=1_790_000_000,
    acr="urn:idp:acr:2fa",
    amr=["pwd", "otp", "mfa"],
    sid="sid-9",
)


def test_the_grant_is_registered_for_its_urn() -> None:
    grant = GRANTS[GRANT_TYPE_DEVICE_CODE]
    assert isinstance(grant, DeviceCodeGrant)
    assert grant.parameters == frozenset({"device_code", "resource"})  # RFC 8707 too
    assert not grant.requires_client_auth  # public clients poll with their client_id


def test_approved_scopes_are_narrowed_to_what_client_and_person_hold_now(
    make_client: Callable[..., Any], make_person: Callable[..., Any]
) -> None:
    client = make_client(scopes=frozenset({"openid", "offline_access", "api:read", "api:write"}))
    person = make_person(scopes=frozenset({"api:read"}))
    assert approved_scopes(APPROVAL, client, person) == ["openid", "offline_access", "api:read"]


@pytest.mark.parametrize(
    ("disabled", "held", "reason"),
    [
        (True, frozenset({"api:read"}), "no longer able to sign in"),
        (False, frozenset(), "none of the approved scopes"),
    ],
)
def test_an_approval_that_grants_nothing_now_is_invalid_grant(
    make_client: Callable[..., Any],
    make_person: Callable[..., Any],
    disabled: bool,
    held: frozenset[str],
    reason: str,
) -> None:
    client = make_client(scopes=frozenset({"api:read"}))
    with pytest.raises(InvalidGrant, match=reason):
        approved_scopes(APPROVAL, client, make_person(disabled=disabled, scopes=held))


def test_a_refresh_token_needs_offline_access_and_the_refresh_grant(
    make_client: Callable[..., Any],
) -> None:
    refreshing = make_client(grant_types=frozenset({GRANT_TYPE_DEVICE_CODE, "refresh_token"}))
    device_only = make_client(grant_types=frozenset({GRANT_TYPE_DEVICE_CODE}))
    assert refresh_scope(["openid", "offline_access"], refreshing) == "openid offline_access"
    assert refresh_scope(["openid"], refreshing) is None
    assert refresh_scope(["openid", "offline_access"], device_only) is None


def test_the_origin_is_the_approving_session() -> None:
    origin = DeviceOrigin.of(APPROVAL)
    assert origin.auth_time == datetime.fromtimestamp(1_790_000_000, UTC)
    assert (origin.acr, origin.amr, origin.session_sid) == (
        "urn:idp:acr:2fa",
        ["pwd", "otp", "mfa"],
        "sid-9",
    )
    assert DeviceOrigin.of(APPROVAL).grant_id != origin.grant_id  # a new grant each time
