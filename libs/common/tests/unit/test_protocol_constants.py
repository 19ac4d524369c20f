"""Unit tests of idp_common.protocol.constants (docs/design.md §2 scope catalogue)."""

from __future__ import annotations

import re

from idp_common.protocol import constants as c


def test_admin_scopes_are_the_design_catalogue() -> None:
    resources = (
        "apis",
        "clients",
        "groups",
        "roles",
        "users",
        "profile-fields",
        "scim",
        "webhooks",
        "branding",
    )
    expected = {f"idp:{r}:{a}" for r in resources for a in ("read", "write")} | {"idp:audit:read"}
    assert set(c.ADMIN_SCOPES) == expected
    assert len(c.ADMIN_SCOPES) == len(expected)


def test_self_service_scopes() -> None:
    assert c.SELF_SERVICE_SCOPES == (
        "idp:account:read",
        "idp:account:write",
        "idp:sessions:read",
        "idp:sessions:write",
        "idp:connections:read",
        "idp:connections:write",
    )


def test_every_idp_scope_is_shaped_and_described() -> None:
    everything = c.ADMIN_SCOPES + c.SELF_SERVICE_SCOPES
    assert not set(c.ADMIN_SCOPES) & set(c.SELF_SERVICE_SCOPES)
    for scope in everything:
        assert re.fullmatch(r"idp:[a-z-]+:(read|write)", scope), scope
        assert scope.startswith(c.IDP_API_NAME + ":")
    assert set(c.IDP_SCOPE_DESCRIPTIONS) == set(everything)
    assert all(description.strip() for description in c.IDP_SCOPE_DESCRIPTIONS.values())


def test_oidc_scopes() -> None:
    assert c.OIDC_SCOPES == ("openid", "profile", "email", "offline_access")
    assert c.SCOPE_OPENID == "openid"
    assert set(c.OIDC_SCOPE_DESCRIPTIONS) == set(c.OIDC_SCOPES)


def test_idp_api_audience() -> None:
    assert c.idp_api_audience("https://id.example.com") == "https://id.example.com/api"
    assert c.idp_api_audience("https://id.example.com/") == "https://id.example.com/api"


def test_protocol_strings() -> None:
    assert c.GRANT_TYPES == (
        "authorization_code",
        "refresh_token",
        "client_credentials",
        "urn:ietf:params:oauth:grant-type:device_code",  # RFC 8628 §3.4
        "urn:ietf:params:oauth:grant-type:token-exchange",  # RFC 8693 §2.1
    )
    assert c.TOKEN_ENDPOINT_AUTH_METHODS == (
        "client_secret_basic",
        "client_secret_post",
        "client_secret_jwt",
        "private_key_jwt",
        "none",
    )
    assert c.CLIENT_ASSERTION_TYPE_JWT_BEARER == (
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    )
    assert c.TOKEN_TYPE_DPOP == "DPoP"
    assert c.SESSION_COOKIE_NAME == "svc_session"
    assert c.BACKCHANNEL_LOGOUT_EVENT == "http://schemas.openid.net/event/backchannel-logout"
    assert c.AMR_VALUES == ("pwd", "otp", "face", "mfa", "hwk", "swk", "user")
    assert c.ACR_VALUES == (
        "urn:idp:acr:face",
        "urn:idp:acr:1fa",
        "urn:idp:acr:2fa",
        "urn:idp:acr:phr",
    )
    assert c.JWT_TYP_ACCESS_TOKEN == "at+jwt"
    assert c.JWT_TYP_LOGOUT_TOKEN == "logout+jwt"


def test_reserved_claims_cover_released_and_protocol_claims() -> None:
    assert set(c.RELEASED_PROFILE_CLAIMS) <= c.RESERVED_CLAIM_NAMES
    assert {"sub", "iss", "events", "sid", "scope", "client_id"} <= c.RESERVED_CLAIM_NAMES
    assert "given_name" not in c.RESERVED_CLAIM_NAMES
