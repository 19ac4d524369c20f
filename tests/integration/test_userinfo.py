"""``GET``/``POST /oauth2/userinfo`` (OIDC Core §5.3, RFC 6750)."""

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
    return tf.create_client(stack, scopes=[*tf.OIDC, "idp:account:read"])


@pytest.fixture(scope="module")
def person(stack: Stack) -> tf.Person:
    return tf.create_person(stack)


def access_token(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person, scope: str
) -> str:
    code = tf.create_code(stack, app, person, scope=scope)
    response = tf.exchange(http, app, code)
    assert response.status_code == 200, response.text
    return response.json()["access_token"]  # type: ignore[no-any-return]


def test_get_with_header_releases_claims_by_scope(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    token = access_token(http, stack, app, person, "openid profile email")
    response = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["sub"] == str(person.id)
    assert body["email"] == person.email
    assert body["email_verified"] is True
    assert body["name"] == "Token Person"
    assert body["preferred_username"] == person.username
    assert isinstance(body["updated_at"], int)
    assert "picture" not in body  # no photo uploaded


def test_openid_only_releases_sub(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    token = access_token(http, stack, app, person, "openid")
    response = http.post("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert response.json() == {"sub": str(person.id)}


def test_post_with_form_field(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    token = access_token(http, stack, app, person, "openid email")
    response = http.post("/oauth2/userinfo", data={"access_token": token})
    assert response.status_code == 200, response.text
    assert set(response.json()) == {"sub", "email", "email_verified"}


def test_token_in_header_and_form_is_refused(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    token = access_token(http, stack, app, person, "openid")
    response = http.post(
        "/oauth2/userinfo",
        data={"access_token": token},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_without_openid_is_403(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    token = access_token(http, stack, app, person, "idp:account:read")
    response = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 403
    assert response.json()["error"] == "insufficient_scope"
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="openid"' in challenge


def test_missing_token_is_401_without_error(http: httpx.Client) -> None:
    response = http.get("/oauth2/userinfo")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == (
        'Bearer realm="idp", DPoP algs="RS256 PS256 ES256 EdDSA"'
    )


@pytest.mark.parametrize("token", ["garbage", "a.b.c"])
def test_invalid_token_is_401(http: httpx.Client, token: str) -> None:
    response = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_token"
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


def test_id_token_or_foreign_audience_is_refused(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, app, person, scope="openid")
    id_token = tf.exchange(http, app, code).json()["id_token"]
    response = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {id_token}"})
    assert response.status_code == 401
    foreign = tokens.mint(
        stack.key_dir,
        issuer=stack.issuer,
        scopes=["openid"],
        subject=str(person.id),
        audience="https://elsewhere.example",
    )
    response = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {foreign}"})
    assert response.status_code == 401


def test_disabled_person_is_401(http: httpx.Client, stack: Stack, app: tf.AppClient) -> None:
    someone = tf.create_person(stack)
    token = access_token(http, stack, app, someone, "openid")
    tf.disable_person(stack, someone)
    time.sleep(5.5)  # the token service caches a person for up to five seconds
    response = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
