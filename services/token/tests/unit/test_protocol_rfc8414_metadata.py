"""Unit tests of token_service.protocol.rfc8414_metadata (contract §4 "Discovery")."""

from __future__ import annotations

from typing import Any

import pytest

from token_service.protocol.rfc8414_metadata import provider_metadata

ISSUER = "https://id.example.com"
METADATA = provider_metadata(ISSUER)


@pytest.mark.parametrize(
    ("member", "expected"),
    [
        ("issuer", "https://id.example.com"),
        ("authorization_endpoint", "https://id.example.com/oauth2/authorize"),
        ("token_endpoint", "https://id.example.com/oauth2/token"),
        ("userinfo_endpoint", "https://id.example.com/oauth2/userinfo"),
        ("jwks_uri", "https://id.example.com/.well-known/jwks.json"),
        ("end_session_endpoint", "https://id.example.com/oauth2/logout"),
        ("introspection_endpoint", "https://id.example.com/oauth2/introspect"),
        ("revocation_endpoint", "https://id.example.com/oauth2/revoke"),
        ("pushed_authorization_request_endpoint", "https://id.example.com/oauth2/par"),
        ("require_pushed_authorization_requests", False),
        ("device_authorization_endpoint", "https://id.example.com/oauth2/device_authorization"),
        ("response_types_supported", ["code"]),
        ("response_modes_supported", ["query"]),
        (
            "grant_types_supported",
            [
                "authorization_code",
                "refresh_token",
                "client_credentials",
                "urn:ietf:params:oauth:grant-type:device_code",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ],
        ),
        ("subject_types_supported", ["public"]),
        ("id_token_signing_alg_values_supported", ["RS256"]),
        ("userinfo_signing_alg_values_supported", ["RS256"]),
        (
            "token_endpoint_auth_methods_supported",
            [
                "client_secret_basic",
                "client_secret_post",
                "client_secret_jwt",
                "private_key_jwt",
                "none",
            ],
        ),
        (
            "introspection_endpoint_auth_methods_supported",
            ["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"],
        ),
        (
            "revocation_endpoint_auth_methods_supported",
            [
                "client_secret_basic",
                "client_secret_post",
                "client_secret_jwt",
                "private_key_jwt",
                "none",
            ],
        ),
        ("token_endpoint_auth_signing_alg_values_supported", ["RS256", "PS256", "ES256", "HS256"]),
        (
            "introspection_endpoint_auth_signing_alg_values_supported",
            ["RS256", "PS256", "ES256", "HS256"],
        ),
        (
            "revocation_endpoint_auth_signing_alg_values_supported",
            ["RS256", "PS256", "ES256", "HS256"],
        ),
        ("code_challenge_methods_supported", ["S256"]),
        ("dpop_signing_alg_values_supported", ["RS256", "PS256", "ES256", "EdDSA"]),
        ("scopes_supported", ["openid", "profile", "email", "offline_access"]),
        (
            "claims_supported",
            [
                "sub",
                "iss",
                "aud",
                "exp",
                "iat",
                "auth_time",
                "nonce",
                "acr",
                "amr",
                "sid",
                "at_hash",
                "email",
                "email_verified",
                "preferred_username",
                "name",
                "picture",
                "updated_at",
            ],
        ),
        ("prompt_values_supported", ["none", "login", "consent", "select_account"]),
        (
            "acr_values_supported",
            ["urn:idp:acr:face", "urn:idp:acr:1fa", "urn:idp:acr:2fa", "urn:idp:acr:phr"],
        ),
        ("ui_locales_supported", ["en", "de", "fr", "es", "ar"]),  # docs/languages.md
        ("authorization_response_iss_parameter_supported", True),
        ("backchannel_logout_supported", True),
        ("backchannel_logout_session_supported", True),
        ("frontchannel_logout_supported", False),
        ("request_parameter_supported", False),
        ("request_uri_parameter_supported", False),
        ("claims_parameter_supported", False),
    ],
)
def test_member(member: str, expected: Any) -> None:
    assert METADATA[member] == expected


def test_no_unexpected_member() -> None:
    assert len(METADATA) == 37
    assert "service_documentation" not in METADATA
    # Claim values are released as stored, not translated (docs/languages.md)
    assert "claims_locales_supported" not in METADATA
    # No request objects or signed introspection answers; client
    # assertions at the token, introspection and revocation endpoints
    signing = {name for name in METADATA if name.endswith("_signing_alg_values_supported")}
    assert signing == {
        "id_token_signing_alg_values_supported",
        "userinfo_signing_alg_values_supported",
        "token_endpoint_auth_signing_alg_values_supported",
        "introspection_endpoint_auth_signing_alg_values_supported",
        "revocation_endpoint_auth_signing_alg_values_supported",
        "dpop_signing_alg_values_supported",  # RFC 9449 §5.1
    }


@pytest.mark.parametrize(
    ("held", "listed"),
    [
        pytest.param({"RS256"}, ["RS256"], id="rs256-only"),
        pytest.param({"EdDSA", "RS256", "ES256"}, ["RS256", "ES256", "EdDSA"], id="ordered"),
        pytest.param(
            {"RS256", "PS256", "ES256", "EdDSA"}, ["RS256", "PS256", "ES256", "EdDSA"], id="all"
        ),
        pytest.param({"RS256", "HS256", "none"}, ["RS256"], id="never-others"),
    ],
)
def test_signing_algorithms_listed_are_those_held(held: set[str], listed: list[str]) -> None:
    metadata = provider_metadata(ISSUER, held)
    assert metadata["id_token_signing_alg_values_supported"] == listed
    assert metadata["userinfo_signing_alg_values_supported"] == listed


@pytest.mark.parametrize(
    ("issuer", "token_endpoint"),
    [
        pytest.param("https://id.example.com", "https://id.example.com/oauth2/token", id="plain"),
        pytest.param("https://id.example.com/", "https://id.example.com/oauth2/token", id="slash"),
        pytest.param(
            "https://example.com/idp", "https://example.com/idp/oauth2/token", id="with-path"
        ),
        pytest.param(
            "https://example.com/idp/", "https://example.com/idp/oauth2/token", id="path-slash"
        ),
        pytest.param("http://localhost:8080", "http://localhost:8080/oauth2/token", id="dev"),
    ],
)
def test_urls_derive_from_the_issuer(issuer: str, token_endpoint: str) -> None:
    metadata = provider_metadata(issuer)
    assert metadata["token_endpoint"] == token_endpoint
    # the issuer member is the configured value, character for character
    assert metadata["issuer"] == issuer
    base = issuer.removesuffix("/")
    urls = [v for k, v in metadata.items() if k.endswith(("_endpoint", "_uri"))]
    assert len(urls) == 9
    for url in urls:
        assert url.startswith(base + "/")
        assert "//" not in url.removeprefix(base.split("://")[0] + "://")


@pytest.mark.parametrize(
    "issuer",
    [
        pytest.param("", id="empty"),
        pytest.param("id.example.com", id="no-scheme"),
        pytest.param("ftp://id.example.com", id="ftp"),
        pytest.param("https://", id="no-host"),
        pytest.param("https://id.example.com?x=1", id="query"),
        pytest.param("https://id.example.com#frag", id="fragment"),
    ],
)
def test_invalid_issuer_refused(issuer: str) -> None:
    with pytest.raises(ValueError, match="issuer"):
        provider_metadata(issuer)


def test_each_call_returns_a_fresh_document() -> None:
    first = provider_metadata(ISSUER)
    first["scopes_supported"].append("mutated")
    first["issuer"] = "changed"
    assert provider_metadata(ISSUER) == METADATA
    assert "mutated" not in METADATA["scopes_supported"]
