"""``POST /oauth2/token`` with ``grant_type=authorization_code``: the tokens a code buys,
PKCE, code replay, expiry, redirect URI and client binding (RFC 6749 4.1.3, RFC 7636)."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from idp_common.protocol.oidc_core_claims import at_hash, session_sid
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.test_token_endpoint.support import (
    ORDERS_READ,
    assert_error,
)

pytestmark = pytest.mark.integration


def test_code_exchange_issues_access_id_and_refresh_tokens(
    http: httpx.Client,
    stack: Stack,
    app: tf.AppClient,
    person: tf.Person,
    orders_audience: str,
    jwks: dict[str, Any],
) -> None:
    scope = f"openid profile email offline_access {ORDERS_READ} idp:account:read idp:users:read"
    code = tf.create_code(stack, app, person, scope=scope, session_id="browser-A")
    response = tf.exchange(http, app, code)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 600
    # idp:users:read is neither the client's nor the person's: narrowed away.
    granted = f"openid profile email offline_access {ORDERS_READ} idp:account:read"
    assert body["scope"] == granted
    assert set(body) == {
        "access_token",
        "token_type",
        "expires_in",
        "scope",
        "id_token",
        "refresh_token",
    }

    header, access = tf.validate_jwt(stack, body["access_token"], jwks)
    assert header["typ"] == "at+jwt"
    assert access["iss"] == stack.issuer
    assert access["sub"] == str(person.id)
    assert access["aud"] == [f"{stack.issuer}/api", orders_audience]
    assert access["client_id"] == app.client_id
    assert access["scope"] == granted
    assert access["sid"] == session_sid("browser-A")
    assert access["acr"] == "urn:idp:acr:1fa"
    assert access["amr"] == ["pwd"]
    assert access["exp"] - access["iat"] == 600
    assert {"jti", "auth_time"} <= set(access)

    header, id_claims = tf.validate_jwt(stack, body["id_token"], jwks)
    assert header["typ"] == "JWT"
    assert id_claims["iss"] == stack.issuer
    assert id_claims["aud"] == app.client_id
    assert id_claims["sub"] == str(person.id)
    assert id_claims["nonce"] == "n-0S6_WzA2Mj"
    assert id_claims["at_hash"] == at_hash(body["access_token"])
    assert id_claims["sid"] == session_sid("browser-A")
    assert id_claims["auth_time"] == access["auth_time"]
    assert id_claims["email"] == person.email
    assert id_claims["email_verified"] is True
    assert id_claims["preferred_username"] == person.username
    assert id_claims["name"] == "Token Person"
    assert isinstance(id_claims["updated_at"], int)
    assert id_claims["exp"] > time.time()


def test_code_exchange_with_post_auth_and_without_offline_access(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, app, person, scope="openid", nonce=None)
    response = tf.exchange(http, app, code, auth="post")
    assert response.status_code == 200, response.text
    body = response.json()
    assert "refresh_token" not in body
    assert "nonce" not in tf.unverified_claims(body["id_token"])
    assert tf.unverified_claims(body["access_token"])["aud"] == f"{stack.issuer}/api"


def test_no_id_token_without_openid(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, app, person, scope=f"{ORDERS_READ}")
    body = tf.exchange(http, app, code).json()
    assert "id_token" not in body
    assert body["scope"] == ORDERS_READ


def test_public_client_with_pkce(
    http: httpx.Client, stack: Stack, spa: tf.AppClient, person: tf.Person
) -> None:
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(stack, spa, person, challenge=challenge)
    response = tf.exchange(http, spa, code, verifier=verifier, auth="post")
    assert response.status_code == 200, response.text
    assert "refresh_token" in response.json()


@pytest.mark.parametrize(
    ("verifier", "method", "description"),
    [
        (None, "S256", "code_verifier is required"),
        ("wrong" * 10, "S256", "code_verifier does not match the code_challenge"),
        ("short", "S256", "code_verifier is malformed"),
        ("PLAIN", "plain", "unsupported code_challenge_method"),
    ],
)
def test_pkce_refusals(
    http: httpx.Client,
    stack: Stack,
    spa: tf.AppClient,
    person: tf.Person,
    verifier: str | None,
    method: str,
    description: str,
) -> None:
    real_verifier, challenge = tf.pkce_pair()
    if verifier == "PLAIN":
        verifier, challenge = real_verifier, real_verifier
    code = tf.create_code(stack, spa, person, challenge=challenge, method=method)
    body = assert_error(
        tf.exchange(http, spa, code, verifier=verifier, auth="post"), 400, "invalid_grant"
    )
    assert body["error_description"] == description
    # The code is burnt by the failed attempt.
    retry = tf.exchange(http, spa, code, verifier=real_verifier, auth="post")
    assert_error(retry, 400, "invalid_grant")


def test_public_client_without_pkce_is_refused(
    http: httpx.Client, stack: Stack, spa: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, spa, person)
    assert_error(tf.exchange(http, spa, code, auth="post"), 400, "invalid_grant")


def test_code_replay_revokes_what_the_code_issued(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, app, person)
    first = tf.exchange(http, app, code).json()
    assert tf.introspect(http, app, first["refresh_token"]).json()["active"] is True
    assert tf.introspect(http, app, first["access_token"]).json()["active"] is True
    body = assert_error(tf.exchange(http, app, code), 400, "invalid_grant")
    assert body["error_description"] == "the authorization code was already used"
    assert tf.introspect(http, app, first["refresh_token"]).json() == {"active": False}
    assert tf.introspect(http, app, first["access_token"]).json() == {"active": False}
    assert_error(tf.refresh(http, app, first["refresh_token"]), 400, "invalid_grant")


def test_expired_code(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, app, person, expired=True)
    body = assert_error(tf.exchange(http, app, code), 400, "invalid_grant")
    assert body["error_description"] == "the authorization code has expired"


def test_unknown_code(http: httpx.Client, app: tf.AppClient) -> None:
    assert_error(tf.exchange(http, app, "not-a-code"), 400, "invalid_grant")


def test_redirect_uri_mismatch(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, app, person)
    response = tf.exchange(http, app, code, redirect_uri="https://app.example/cb2")
    body = assert_error(response, 400, "invalid_grant")
    assert body["error_description"] == "redirect_uri does not match the authorization request"


def test_code_of_another_client(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    other = tf.create_client(stack)
    code = tf.create_code(stack, app, person)
    assert_error(tf.exchange(http, other, code), 400, "invalid_grant")


def test_disabled_person_gets_no_tokens(
    http: httpx.Client, stack: Stack, app: tf.AppClient
) -> None:
    someone = tf.create_person(stack)
    code = tf.create_code(stack, app, someone)
    tf.disable_person(stack, someone)
    assert_error(tf.exchange(http, app, code), 400, "invalid_grant")


def test_missing_parameters(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token", data={"grant_type": "authorization_code"}, headers=app.basic()
    )
    assert assert_error(response, 400, "invalid_request")["error_description"] == (
        "code is required"
    )
    response = http.post("/oauth2/token", data={"code": "x"}, headers=app.basic())
    assert_error(response, 400, "invalid_request")
