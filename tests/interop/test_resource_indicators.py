"""Resource indicators (RFC 8707) through the proxy, with Authlib for the code flow.

A ``resource`` names an API by its audience: the access token's ``aud`` becomes it and the
scope narrows to its scopes (the OpenID Connect scopes stay, and a token that keeps
``openid`` keeps the provider's own audience for userinfo). An unknown resource, a
malformed one, or one of which the grant holds no scope is ``invalid_target``.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.harness import records
from tests.harness.api import ApiClient
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.interop.resource_support import (
    REDIRECT_URI,
    Api,
    Client,
    code_flow,
    create_api,
    create_client,
    sent,
    token_request,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def apis(admin: ApiClient) -> tuple[Api, Api, Api]:
    return create_api(admin), create_api(admin, urn=True), create_api(admin)


def _token(stack: Stack, client: Client, form: list[tuple[str, str]]) -> httpx.Response:
    """A token request whose form may repeat a name (``resource``)."""
    return token_request(stack, client, form)


def _claims(stack: Stack, body: dict[str, Any], jwks: dict[str, Any]) -> dict[str, Any]:
    return tf.validate_jwt(stack, body["access_token"], jwks)[1]


def _error(response: httpx.Response, error: str) -> None:
    assert response.status_code == 400, response.text
    assert response.json()["error"] == error, response.text


def test_client_credentials_resource_selects_the_audience(
    stack: Stack, admin: ApiClient, apis: tuple[Api, Api, Api], jwks: dict[str, Any]
) -> None:
    a, b, c = apis
    machine = create_client(admin, grants=["client_credentials"], scopes=[a.scope, b.scope])
    plain = sent(_token(stack, machine, [("grant_type", "client_credentials")]), 200)
    assert sorted(_claims(stack, plain, jwks)["aud"]) == sorted([a.audience, b.audience])

    form = [("grant_type", "client_credentials"), ("resource", a.audience)]
    one = sent(_token(stack, machine, form), 200)
    assert one["scope"] == a.scope
    claims = _claims(stack, one, jwks)
    assert claims["aud"] == a.audience
    assert claims["scope"] == a.scope

    form = [("grant_type", "client_credentials"), ("resource", b.audience)]
    form += [("resource", a.audience)]  # repeated: both, in the order asked
    both = sent(_token(stack, machine, form), 200)
    assert _claims(stack, both, jwks)["aud"] == [b.audience, a.audience]
    assert set(both["scope"].split()) == {a.scope, b.scope}

    for resource in (
        c.audience,  # an API of which the client holds no scope
        "https://unknown.example/api",  # no API
        "not-a-uri",  # not absolute
        a.audience + "#part",  # a fragment
    ):
        form = [("grant_type", "client_credentials"), ("resource", resource)]
        _error(_token(stack, machine, form), "invalid_target")
    scoped = [("grant_type", "client_credentials"), ("scope", a.scope), ("resource", b.audience)]
    _error(_token(stack, machine, scoped), "invalid_target")


def test_code_flow_resource_at_authorize_narrows_the_grant(
    stack: Stack, admin: ApiClient, apis: tuple[Api, Api, Api], jwks: dict[str, Any]
) -> None:
    a, b, _ = apis
    oidc = ["openid", "offline_access"]
    app = create_client(
        admin, grants=["authorization_code", "refresh_token"], scopes=[*oidc, a.scope, b.scope]
    )
    person = records.create_user(stack, scopes=(a.scope, b.scope))
    scope = f"openid offline_access {a.scope} {b.scope}"
    _, token = code_flow(stack, app, person, scope, authorize_resource=a.audience)
    assert token["scope"].split() == ["openid", "offline_access", a.scope]
    assert "id_token" in token
    claims = _claims(stack, token, jwks)
    assert claims["aud"] == [f"{stack.issuer}/api", a.audience]  # openid: userinfo too
    userinfo = httpx.get(
        stack.proxy_url + "/oauth2/userinfo",
        headers={"Authorization": f"Bearer {token['access_token']}"},
    )
    assert userinfo.status_code == 200, userinfo.text

    # RFC 8707 §2.2: at refresh, only what the authorization reached
    refresh = [("grant_type", "refresh_token"), ("refresh_token", token["refresh_token"])]
    _error(_token(stack, app, [*refresh, ("resource", b.audience)]), "invalid_target")
    again = sent(_token(stack, app, [*refresh, ("resource", a.audience)]), 200)  # still unspent
    assert _claims(stack, again, jwks)["aud"] == [f"{stack.issuer}/api", a.audience]


def test_code_flow_resource_at_the_token_endpoint_and_at_refresh(
    stack: Stack, admin: ApiClient, apis: tuple[Api, Api, Api], jwks: dict[str, Any]
) -> None:
    a, b, c = apis
    app = create_client(
        admin,
        grants=["authorization_code", "refresh_token"],
        scopes=["offline_access", a.scope, b.scope],
    )
    person = records.create_user(stack, scopes=(a.scope, b.scope))
    scope = f"offline_access {a.scope} {b.scope}"
    _, token = code_flow(stack, app, person, scope, token_resource=a.audience)
    claims = _claims(stack, token, jwks)
    assert claims["aud"] == a.audience  # no openid: the resource alone
    assert claims["scope"].split() == ["offline_access", a.scope]
    assert claims["sub"] == person.id

    # The refresh token keeps the whole grant: a token for the other API now
    refresh = [("grant_type", "refresh_token"), ("refresh_token", token["refresh_token"])]
    other = sent(_token(stack, app, [*refresh, ("resource", b.audience)]), 200)
    assert _claims(stack, other, jwks)["aud"] == b.audience
    assert other["scope"].split() == ["offline_access", b.scope]
    refresh = [("grant_type", "refresh_token"), ("refresh_token", other["refresh_token"])]
    _error(_token(stack, app, [*refresh, ("resource", c.audience)]), "invalid_target")


def test_authorize_refuses_an_unknown_resource_at_the_redirect_uri(
    stack: Stack, admin: ApiClient, apis: tuple[Api, Api, Api]
) -> None:
    a, _, c = apis
    app = create_client(admin, grants=["authorization_code"], scopes=["openid", a.scope])
    _, challenge = tf.pkce_pair()
    for resource in ("https://unknown.example/api", c.audience, "relative/path"):
        params = {
            "response_type": "code",
            "client_id": app.client_id,
            "redirect_uri": REDIRECT_URI,
            "scope": f"openid {a.scope}",
            "state": "s1",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": resource,
        }
        answer = httpx.get(stack.proxy_url + "/oauth2/authorize", params=params)
        assert answer.status_code == 302, answer.text
        location = httpx.URL(answer.headers["location"])
        assert str(location).startswith(REDIRECT_URI)
        assert location.params["error"] == "invalid_target"
        assert location.params["state"] == "s1"
