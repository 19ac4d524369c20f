"""The discovery document says exactly what is implemented (issue #25 item 3).

Each member is compared with what the running provider does, through the proxy:
- the endpoints listed are the token service's OAuth routes, no more and no fewer (its
  OpenAPI document is generated from the routes), and each answers its method (never 404
  or 405);
- every grant type listed reaches its grant (an error other than
  ``unsupported_grant_type``), the token form's grant variants are the same set, and a
  grant not listed is ``unsupported_grant_type``;
- every client authentication method listed can be registered, one not listed cannot;
- every assertion and DPoP algorithm listed is accepted at the token endpoint, one not
  listed is refused;
- every language listed in ``ui_locales_supported`` is the one the sign-in page is told to
  use when a request asks for it (issue #28); ``claims_locales_supported`` is absent.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from joserfc.jwk import OctKey

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import records
from tests.harness.api import TWO_FACTOR_SIGN_IN, ApiClient, create_administrator
from tests.harness.client_assertions import (
    assertion_form,
    new_key,
    public_jwks,
    secret_assertion,
    sign,
    sign_assertion,
)
from tests.harness.dpop import DpopKey
from tests.harness.pkce import pkce_pair
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
#: Token-service routes that are not OAuth endpoints of the metadata.
NOT_ENDPOINTS = {
    "/.well-known/openid-configuration",
    "/.well-known/oauth-authorization-server",
}
#: The method each endpoint member is called with.
GET_ENDPOINTS = {"authorization_endpoint", "userinfo_endpoint", "end_session_endpoint", "jwks_uri"}


@pytest.fixture(scope="module")
def admin(stack: Stack) -> Iterator[ApiClient]:
    actor = create_administrator(stack, ADMIN_SCOPES)
    api = ApiClient(
        stack, "admin", actor, ADMIN_SCOPES, fresh_sign_in=True, base_url=stack.proxy_url
    )
    api.claims = dict(TWO_FACTOR_SIGN_IN)
    try:
        yield api
    finally:
        api.close()


@pytest.fixture(scope="module")
def metadata(stack: Stack) -> dict[str, Any]:
    answer = httpx.get(stack.proxy_url + "/.well-known/openid-configuration", timeout=10)
    assert answer.status_code == 200
    document: dict[str, Any] = answer.json()
    return document


@pytest.fixture(scope="module")
def api_scope(stack: Stack, admin: ApiClient) -> str:
    created = admin.post(
        "/admin/apis", json={"name": "discovery", "audience": "https://discovery.example/api"}
    )
    assert created.status_code == 201, created.text
    api_id = created.json()["id"]
    scope = "discovery:things:read"
    added = admin.post(
        f"/admin/apis/{api_id}/scopes", json={"value": scope, "description": "Read things"}
    )
    assert added.status_code == 201, added.text
    return scope


def _client(admin: ApiClient, scope: str, **fields: Any) -> dict[str, Any]:
    body = {
        "name": "discovery",
        "type": "confidential",
        "redirectUris": ["https://rp.example/cb"],
        "grantTypes": ["client_credentials"],
        **fields,
    }
    created = admin.post("/admin/clients", json=body)
    assert created.status_code == 201, created.text
    client: dict[str, Any] = created.json()
    scoped = admin.put(f"/admin/clients/{client['client_id']}/scopes", json={"scopes": [scope]})
    assert scoped.status_code == 200, scoped.text
    return client


def _token(stack: Stack, form: dict[str, str], **kw: Any) -> httpx.Response:
    headers = {**FORM, **kw.pop("headers", {})}
    return httpx.post(
        stack.proxy_url + "/oauth2/token", data=form, headers=headers, timeout=10, **kw
    )


def test_the_endpoints_listed_are_the_routes(stack: Stack, metadata: dict[str, Any]) -> None:
    listed = {
        member: urlsplit(value).path
        for member, value in metadata.items()
        if member.endswith("_endpoint") or member == "jwks_uri"
    }
    assert all(metadata[m].startswith(metadata["issuer"].rstrip("/")) for m in listed)
    document = httpx.get(stack.service_url("token") + "/openapi.json", timeout=10).json()
    routes = {path for path in document["paths"] if path.startswith(("/oauth2/", "/.well-known/"))}
    assert set(listed.values()) == routes - NOT_ENDPOINTS
    for member, path in listed.items():
        method = "GET" if member in GET_ENDPOINTS else "POST"
        answer = httpx.request(method, stack.proxy_url + path, timeout=10, follow_redirects=False)
        assert answer.status_code not in (404, 405), (member, answer.status_code)


def test_every_grant_listed_reaches_its_grant(
    stack: Stack, admin: ApiClient, metadata: dict[str, Any], api_scope: str
) -> None:
    listed = metadata["grant_types_supported"]
    document = httpx.get(stack.service_url("token") + "/openapi.json", timeout=10).json()
    schema = document["paths"]["/oauth2/token"]["post"]["requestBody"]["content"][
        "application/x-www-form-urlencoded"
    ]["schema"]
    declared = {variant["properties"]["grant_type"]["const"] for variant in schema["oneOf"]}
    assert declared == set(listed)
    client = _client(admin, api_scope, grantTypes=listed)
    auth = (client["client_id"], client["client_secret"])
    for grant in listed:
        answer = _token(stack, {"grant_type": grant}, auth=auth)
        error = answer.json().get("error")
        assert error != "unsupported_grant_type", (grant, answer.text)
    unknown = _token(stack, {"grant_type": "urn:example:not-a-grant"}, auth=auth)
    assert unknown.status_code == 400
    assert unknown.json()["error"] == "unsupported_grant_type"


def test_every_auth_method_listed_can_be_registered(
    admin: ApiClient, metadata: dict[str, Any], api_scope: str
) -> None:
    for method in metadata["token_endpoint_auth_methods_supported"]:
        fields: dict[str, Any] = {"token_endpoint_auth_method": method}
        if method == "none":
            fields |= {"type": "public", "grantTypes": ["authorization_code"]}
        if method == "private_key_jwt":
            fields["jwks"] = public_jwks(new_key("ES256"))
        assert _client(admin, api_scope, **fields)["token_endpoint_auth_method"] == method
    refused = admin.post(
        "/admin/clients",
        json={
            "name": "mtls",
            "type": "confidential",
            "grantTypes": ["client_credentials"],
            "token_endpoint_auth_method": "tls_client_auth",
        },
    )
    assert refused.status_code == 422
    assert [e["field"] for e in refused.json()["errors"]] == ["token_endpoint_auth_method"]


def test_every_assertion_algorithm_listed_is_accepted(
    stack: Stack, admin: ApiClient, metadata: dict[str, Any], api_scope: str
) -> None:
    token_url = metadata["token_endpoint"]
    listed = metadata["token_endpoint_auth_signing_alg_values_supported"]
    for key_endpoint in ("introspection", "revocation"):
        assert metadata[f"{key_endpoint}_endpoint_auth_signing_alg_values_supported"] == listed
    for alg in listed:
        form = {"grant_type": "client_credentials", "scope": api_scope}
        if alg.startswith("HS"):
            client = _client(admin, api_scope, token_endpoint_auth_method="client_secret_jwt")
            assertion = secret_assertion(client["client_secret"], client["client_id"], token_url)
        else:
            key = new_key(alg)
            client = _client(
                admin,
                api_scope,
                token_endpoint_auth_method="private_key_jwt",
                jwks=public_jwks(key),
            )
            assertion = sign_assertion(key, client["client_id"], token_url)
        answer = _token(stack, {**form, **assertion_form(assertion, client["client_id"])})
        assert answer.status_code == 200, (alg, answer.text)
    assert "none" not in listed and "HS512" not in listed


def test_every_dpop_algorithm_listed_is_accepted(
    stack: Stack, admin: ApiClient, metadata: dict[str, Any], api_scope: str
) -> None:
    token_url = metadata["token_endpoint"]
    client = _client(admin, api_scope)
    auth = (client["client_id"], client["client_secret"])
    form = {"grant_type": "client_credentials", "scope": api_scope}
    for alg in metadata["dpop_signing_alg_values_supported"]:
        proof = DpopKey.generate(alg).proof("POST", token_url)
        answer = _token(stack, form, auth=auth, headers={"DPoP": proof})
        assert answer.status_code == 200, (alg, answer.text)
        assert answer.json()["token_type"] == "DPoP"
    assert not {"none", "HS256"} & set(metadata["dpop_signing_alg_values_supported"])
    secret = OctKey.import_key(secrets.token_bytes(32))
    claims = {"htm": "POST", "htu": token_url, "iat": int(time.time()), "jti": "hs256-proof"}
    header = {"typ": "dpop+jwt", "alg": "HS256", "jwk": dict(secret.as_dict(private=False))}
    symmetric = sign(claims, secret, header)
    refused = _token(stack, form, auth=auth, headers={"DPoP": symmetric})
    assert refused.status_code == 400
    assert refused.json()["error"] == "invalid_dpop_proof"


def test_pushed_requests_are_optional_at_the_server(metadata: dict[str, Any]) -> None:
    assert metadata["require_pushed_authorization_requests"] is False
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert metadata["code_challenge_methods_supported"] == ["S256"]


def test_every_ui_locale_listed_is_the_sign_in_pages_language(
    stack: Stack, metadata: dict[str, Any]
) -> None:
    listed = metadata["ui_locales_supported"]
    assert listed == ["en", "de", "fr", "es", "ar"]
    assert "claims_locales_supported" not in metadata  # claim values are not translated
    app = records.create_client(stack, public=True)
    for locale in listed:
        params = {
            "response_type": "code",
            "client_id": app.client_id,
            "redirect_uri": app.redirect_uri,
            "scope": "openid",
            "code_challenge": pkce_pair()[1],
            "code_challenge_method": "S256",
            "ui_locales": f"xx {locale}",
        }
        start = httpx.get(stack.proxy_url + "/oauth2/authorize", params=params, timeout=10)
        assert start.status_code == 302, start.text
        challenge = parse_qs(urlsplit(start.headers["location"]).query)["challenge"][0]
        read = httpx.get(
            f"{stack.proxy_url}/api/v1/auth/challenge/{challenge}",
            headers={"Accept-Language": "it"},
            timeout=10,
        )
        assert read.status_code == 200, read.text
        assert read.json()["locale"] == locale
