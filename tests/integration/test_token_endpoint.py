"""``POST /oauth2/token``: every grant, client authentication, PKCE, code replay, refresh
rotation and reuse, the RFC 6749 error objects and the per-address limit.

Requests go straight to the token service (see ``token_fixtures``); exact error bodies
are asserted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from idp_common.protocol.oidc_core_claims import at_hash, session_sid
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration
ORDERS_READ = "orders-tokentest:orders:read"
ORDERS_WRITE = "orders-tokentest:orders:write"


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    yield from tf.token_http(stack)


@pytest.fixture(scope="module")
def orders_audience(stack: Stack) -> str:
    return tf.create_api(stack, [ORDERS_READ, ORDERS_WRITE])


@pytest.fixture(scope="module")
def app(stack: Stack, orders_audience: str) -> tf.AppClient:
    return tf.create_client(stack, scopes=[*tf.OIDC, ORDERS_READ, "idp:account:read"])


@pytest.fixture(scope="module")
def spa(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack, public=True)


@pytest.fixture(scope="module")
def machine(stack: Stack, orders_audience: str) -> tf.AppClient:
    return tf.create_client(
        stack, scopes=[ORDERS_READ, ORDERS_WRITE, "openid"], grant_types=["client_credentials"]
    )


@pytest.fixture(scope="module")
def person(stack: Stack, orders_audience: str) -> tf.Person:
    return tf.create_person(stack, scopes=[ORDERS_READ])


@pytest.fixture(scope="module")
def jwks(stack: Stack) -> dict[str, Any]:
    return httpx.get(stack.service_url("token") + "/.well-known/jwks.json").json()  # type: ignore[no-any-return]


def assert_error(response: httpx.Response, status: int, error: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"
    body: dict[str, Any] = response.json()
    assert body["error"] == error, body
    assert set(body) <= {"error", "error_description"}
    return body


# --- authorization_code ----------------------------------------------------------------


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


# --- client authentication -------------------------------------------------------------


def test_wrong_secret_over_basic_is_401_with_challenge(
    http: httpx.Client, app: tf.AppClient
) -> None:
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "authorization_code", "code": "x", "redirect_uri": tf.REDIRECT},
        headers=app.basic("wrong-secret"),
    )
    assert_error(response, 401, "invalid_client")
    assert response.headers["www-authenticate"] == 'Basic realm="idp"'


def test_wrong_secret_over_post_is_401_without_challenge(
    http: httpx.Client, app: tf.AppClient
) -> None:
    response = http.post(
        "/oauth2/token",
        data={
            "grant_type": "authorization_code",
            "code": "x",
            "client_id": app.client_id,
            "client_secret": "wrong",
        },
    )
    assert_error(response, 401, "invalid_client")
    assert "www-authenticate" not in response.headers


@pytest.mark.parametrize(
    "form",
    [
        {"grant_type": "client_credentials", "client_id": "nobody-here"},
        {"grant_type": "client_credentials"},
    ],
)
def test_unknown_or_missing_client(http: httpx.Client, form: dict[str, str]) -> None:
    assert_error(http.post("/oauth2/token", data=form), 401, "invalid_client")


def test_confidential_client_without_secret(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token", data={"grant_type": "refresh_token", "client_id": app.client_id}
    )
    assert_error(response, 401, "invalid_client")


def test_two_authentication_methods_refused(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials", "client_secret": app.secret or ""},
        headers=app.basic(),
    )
    assert_error(response, 400, "invalid_request")


def test_basic_credentials_are_form_urlencoded(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    client = tf.create_client(stack)
    code = tf.create_code(stack, client, person, scope="openid")
    # RFC 6749 §2.3.1: the secret is form-urlencoded before base64 ("-" and "_" are kept;
    # percent-encoding an unreserved character must decode to the same secret).
    encoded = "".join(f"%{ord(c):02X}" if c in "-_" else c for c in client.secret or "")
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": tf.REDIRECT},
        headers=client.basic(encoded),
    )
    assert response.status_code == 200, response.text


# --- request shape ---------------------------------------------------------------------


def test_unsupported_grant_type(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post("/oauth2/token", data={"grant_type": "password"}, headers=app.basic())
    assert_error(response, 400, "unsupported_grant_type")


def test_grant_not_allowed_for_client(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token", data={"grant_type": "client_credentials"}, headers=app.basic()
    )
    assert_error(response, 400, "unauthorized_client")


def test_duplicated_parameter(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token",
        content=b"grant_type=authorization_code&code=a&code=b&redirect_uri=x",
        headers={**app.basic(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    body = assert_error(response, 400, "invalid_request")
    assert body["error_description"] == "parameter code is repeated"


def test_unknown_parameters_are_ignored(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, app, person, scope="openid")
    response = http.post(
        "/oauth2/token",
        content=(
            f"grant_type=authorization_code&code={code}&redirect_uri={tf.REDIRECT}"
            "&foo=1&foo=2&refresh_token="
        ).encode(),
        headers={**app.basic(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 200, response.text


def test_json_body_refused(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token", json={"grant_type": "client_credentials"}, headers=app.basic()
    )
    assert_error(response, 400, "invalid_request")


# --- client_credentials ----------------------------------------------------------------


def test_client_credentials(
    http: httpx.Client,
    stack: Stack,
    machine: tf.AppClient,
    orders_audience: str,
    jwks: dict[str, Any],
) -> None:
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": f"{ORDERS_READ} openid idp:audit:read"},
        headers=machine.basic(),
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["scope"] == ORDERS_READ
    assert "refresh_token" not in body
    assert "id_token" not in body
    header, claims = tf.validate_jwt(stack, body["access_token"], jwks)
    assert header["typ"] == "at+jwt"
    assert claims["sub"] == machine.client_id
    assert claims["client_id"] == machine.client_id
    assert claims["aud"] == orders_audience
    assert "auth_time" not in claims


def test_client_credentials_default_scope_and_post_auth(
    http: httpx.Client, machine: tf.AppClient
) -> None:
    response = http.post(
        "/oauth2/token", data={"grant_type": "client_credentials", **machine.post_fields()}
    )
    assert response.status_code == 200, response.text
    assert set(response.json()["scope"].split()) == {ORDERS_READ, ORDERS_WRITE}


def test_client_credentials_invalid_scope(http: httpx.Client, machine: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": "idp:users:write"},
        headers=machine.basic(),
    )
    assert_error(response, 400, "invalid_scope")
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": 'bad"scope'},
        headers=machine.basic(),
    )
    assert_error(response, 400, "invalid_scope")


def test_client_credentials_refused_to_public_client(stack: Stack, http: httpx.Client) -> None:
    public = tf.create_client(stack, public=True, grant_types=["client_credentials"])
    response = http.post(
        "/oauth2/token", data={"grant_type": "client_credentials", "client_id": public.client_id}
    )
    assert_error(response, 401, "invalid_client")


# --- refresh_token ---------------------------------------------------------------------


def _tokens(
    http: httpx.Client, stack: Stack, client: tf.AppClient, person: tf.Person
) -> dict[str, Any]:
    verifier, challenge = tf.pkce_pair()
    scope = f"openid email offline_access {ORDERS_READ}"
    code = tf.create_code(stack, client, person, scope=scope, challenge=challenge)
    response = tf.exchange(
        http, client, code, verifier=verifier, auth="basic" if client.secret else "post"
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_refresh_rotates(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person, jwks: dict[str, Any]
) -> None:
    first = _tokens(http, stack, app, person)
    response = tf.refresh(http, app, first["refresh_token"])
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    second = response.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["scope"] == first["scope"]
    _, id_claims = tf.validate_jwt(stack, second["id_token"], jwks)
    assert "nonce" not in id_claims
    assert id_claims["at_hash"] == at_hash(second["access_token"])
    assert id_claims["sid"] == session_sid("browser-session-1")
    # Narrowing is allowed, widening is not.
    narrowed = tf.refresh(http, app, second["refresh_token"], scope=ORDERS_READ)
    assert narrowed.status_code == 200, narrowed.text
    assert narrowed.json()["scope"] == ORDERS_READ
    assert "id_token" not in narrowed.json()
    wider = tf.refresh(http, app, narrowed.json()["refresh_token"], scope="openid profile")
    assert_error(wider, 400, "invalid_scope")
    # The refused request spent nothing: the token still works, with its full scope.
    again = tf.refresh(http, app, narrowed.json()["refresh_token"])
    assert again.status_code == 200, again.text
    assert again.json()["scope"] == first["scope"]


def test_public_client_refresh(
    http: httpx.Client, stack: Stack, spa: tf.AppClient, person: tf.Person
) -> None:
    first = _tokens(http, stack, spa, person)
    response = tf.refresh(http, spa, first["refresh_token"])
    assert response.status_code == 200, response.text


def test_reused_refresh_token_revokes_the_family(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    first = _tokens(http, stack, app, person)
    second = tf.refresh(http, app, first["refresh_token"]).json()
    third = tf.refresh(http, app, second["refresh_token"]).json()
    body = assert_error(tf.refresh(http, app, first["refresh_token"]), 400, "invalid_grant")
    assert body["error_description"] == "refresh token was already used; its family is revoked"
    assert_error(tf.refresh(http, app, third["refresh_token"]), 400, "invalid_grant")
    assert tf.introspect(http, app, third["refresh_token"]).json() == {"active": False}
    assert tf.introspect(http, app, third["access_token"]).json() == {"active": False}


def test_refresh_token_of_another_client(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    first = _tokens(http, stack, app, person)
    other = tf.create_client(stack)
    assert_error(tf.refresh(http, other, first["refresh_token"]), 400, "invalid_grant")
    # The owner can still use it: a stranger's attempt spends nothing.
    assert tf.refresh(http, app, first["refresh_token"]).status_code == 200


async def test_concurrent_refreshes_only_one_wins(
    stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    with httpx.Client(
        base_url=stack.service_url("token"), headers={"X-Forwarded-For": tf.fresh_address()}
    ) as sync_http:
        first = _tokens(sync_http, stack, app, person)
    form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
    async with httpx.AsyncClient(
        base_url=stack.service_url("token"),
        timeout=15,
        headers={"X-Forwarded-For": tf.fresh_address(), **app.basic()},
    ) as client:
        responses = await asyncio.gather(
            *(client.post("/oauth2/token", data=form) for _ in range(2))
        )
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 400], [r.text for r in responses]


# --- the per-address limit -------------------------------------------------------------


def test_121st_request_in_a_minute_is_429(stack: Stack, machine: tf.AppClient) -> None:
    limit = 120
    with httpx.Client(
        base_url=stack.service_url("token"),
        timeout=15,
        headers={"X-Forwarded-For": tf.fresh_address()},
    ) as client:
        form = {"grant_type": "client_credentials"}
        for _ in range(limit):
            response = client.post("/oauth2/token", data=form, headers=machine.basic())
            assert response.status_code == 200, response.text
        response = client.post("/oauth2/token", data=form, headers=machine.basic())
    body = assert_error(response, 429, "temporarily_unavailable")
    assert body["error_description"]
    assert 1 <= int(response.headers["retry-after"]) <= 60
