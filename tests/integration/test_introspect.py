"""``POST /oauth2/introspect`` (RFC 7662; spec parts 4 and 7): confidential clients only,
own tokens only, the revocation list consulted."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from tests.harness import tokens
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    yield from tf.token_http(stack)


@pytest.fixture(scope="module")
def app(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack)


@pytest.fixture(scope="module")
def person(stack: Stack) -> tf.Person:
    return tf.create_person(stack)


def issued(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> dict[str, str]:
    code = tf.create_code(stack, app, person)
    response = tf.exchange(http, app, code)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_own_access_token_is_active_with_claims(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    body = issued(http, stack, app, person)
    response = tf.introspect(http, app, body["access_token"])
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    answer = response.json()
    claims = tf.unverified_claims(body["access_token"])
    assert answer["active"] is True
    assert answer["token_type"] == "Bearer"
    for name in ("sub", "client_id", "scope", "exp", "iat", "iss", "aud", "jti"):
        assert answer[name] == claims[name], name
    # The hint is only a hint.
    hinted = tf.introspect(http, app, body["access_token"], token_type_hint="refresh_token")
    assert hinted.json()["active"] is True


def test_own_refresh_token_is_active(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    body = issued(http, stack, app, person)
    answer = tf.introspect(http, app, body["refresh_token"]).json()
    assert answer["active"] is True
    assert answer["client_id"] == app.client_id
    assert answer["sub"] == str(person.id)
    assert answer["scope"] == body["scope"]
    assert answer["exp"] - answer["iat"] == 30 * 24 * 3600


def test_another_clients_tokens_are_inactive(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    body = issued(http, stack, app, person)
    other = tf.create_client(stack)
    assert tf.introspect(http, other, body["access_token"]).json() == {"active": False}
    assert tf.introspect(http, other, body["refresh_token"]).json() == {"active": False}


@pytest.mark.parametrize("token", ["unknown", "a.b.c", "x" * 2000])
def test_unknown_token_is_inactive(http: httpx.Client, app: tf.AppClient, token: str) -> None:
    response = tf.introspect(http, app, token)
    assert response.status_code == 200
    assert response.json() == {"active": False}


def test_expired_access_token_is_inactive(
    http: httpx.Client, stack: Stack, app: tf.AppClient
) -> None:
    token = tokens.mint(
        stack.key_dir, issuer=stack.issuer, scopes=["openid"], now=int(time.time()) - 700
    )
    assert tf.introspect(http, app, token).json() == {"active": False}


def test_public_client_is_refused(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    body = issued(http, stack, app, person)
    public = tf.create_client(stack, public=True)
    response = http.post(
        "/oauth2/introspect", data={"token": body["access_token"], "client_id": public.client_id}
    )
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


def test_wrong_secret_is_refused(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post("/oauth2/introspect", data={"token": "x"}, headers=app.basic("nope"))
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"
    assert response.headers["www-authenticate"] == 'Basic realm="idp"'


def test_missing_token_parameter(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post("/oauth2/introspect", data={}, headers=app.basic())
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_revoked_access_token_is_inactive(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    body = issued(http, stack, app, person)
    response = http.post(
        "/oauth2/revoke", data={"token": body["access_token"]}, headers=app.basic()
    )
    assert response.status_code == 200
    assert tf.introspect(http, app, body["access_token"]).json() == {"active": False}
    # Its refresh token is another token: still active.
    assert tf.introspect(http, app, body["refresh_token"]).json()["active"] is True
