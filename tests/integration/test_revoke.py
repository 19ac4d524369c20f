"""``POST /oauth2/revoke`` (RFC 7009): access tokens go on the revocation list, a refresh
token revokes its family and its grant's access tokens, unknown tokens are 200."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

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
def spa(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack, public=True)


@pytest.fixture(scope="module")
def person(stack: Stack) -> tf.Person:
    return tf.create_person(stack)


def issued(
    http: httpx.Client, stack: Stack, client: tf.AppClient, person: tf.Person
) -> dict[str, str]:
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(stack, client, person, challenge=challenge)
    response = tf.exchange(
        http, client, code, verifier=verifier, auth="basic" if client.secret else "post"
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def revoke(http: httpx.Client, client: tf.AppClient, token: str, **extra: str) -> httpx.Response:
    if client.secret:
        return http.post("/oauth2/revoke", data={"token": token, **extra}, headers=client.basic())
    return http.post(
        "/oauth2/revoke", data={"token": token, "client_id": client.client_id, **extra}
    )


def userinfo(http: httpx.Client, token: str) -> httpx.Response:
    return http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})


def test_revoking_an_access_token(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    body = issued(http, stack, app, person)
    assert userinfo(http, body["access_token"]).status_code == 200
    response = revoke(http, app, body["access_token"], token_type_hint="access_token")
    assert response.status_code == 200
    assert response.content == b""
    assert tf.introspect(http, app, body["access_token"]).json() == {"active": False}
    assert userinfo(http, body["access_token"]).status_code == 401


def test_revoking_a_refresh_token_revokes_its_family_and_access_tokens(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    first = issued(http, stack, app, person)
    second = tf.refresh(http, app, first["refresh_token"]).json()
    assert revoke(http, app, second["refresh_token"]).status_code == 200
    assert tf.refresh(http, app, second["refresh_token"]).json()["error"] == "invalid_grant"
    assert tf.introspect(http, app, second["access_token"]).json() == {"active": False}
    assert tf.introspect(http, app, first["access_token"]).json() == {"active": False}


def test_public_client_revokes_its_own_refresh_token(
    http: httpx.Client, stack: Stack, spa: tf.AppClient, person: tf.Person
) -> None:
    body = issued(http, stack, spa, person)
    assert revoke(http, spa, body["refresh_token"]).status_code == 200
    assert tf.refresh(http, spa, body["refresh_token"]).status_code == 400


def test_another_clients_token_is_left_alone(
    http: httpx.Client, stack: Stack, app: tf.AppClient, spa: tf.AppClient, person: tf.Person
) -> None:
    body = issued(http, stack, app, person)
    assert revoke(http, spa, body["refresh_token"]).status_code == 200
    assert revoke(http, spa, body["access_token"]).status_code == 200
    assert tf.introspect(http, app, body["refresh_token"]).json()["active"] is True
    assert tf.introspect(http, app, body["access_token"]).json()["active"] is True


@pytest.mark.parametrize("token", ["unknown", "a.b.c"])
def test_unknown_token_is_200(http: httpx.Client, app: tf.AppClient, token: str) -> None:
    assert revoke(http, app, token).status_code == 200


def test_client_must_authenticate(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post("/oauth2/revoke", data={"token": "x"}, headers=app.basic("bad"))
    assert response.status_code == 401
    assert response.json() == {
        "error": "invalid_client",
        "error_description": "client authentication failed",
    }
