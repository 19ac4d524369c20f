"""A client an administrator disabled (``PATCH /admin/clients/{id}`` ``disabled: true``) is
answered as one that does not exist wherever it takes part: ``invalid_client`` (401) at
the token, PAR, introspection, revocation and device authorization endpoints, public
clients included, and the error page of an unknown ``client_id`` at ``/oauth2/authorize``
(never a redirect to its redirect URI). Enabled again, its refresh tokens work again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import GRANT_TYPE_DEVICE_CODE
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.admin.contract import AdminApi
from tests.integration.test_token_endpoint.support import ORDERS_READ, assert_error, tokens

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def admin(stack: Stack) -> Iterator[AdminApi]:
    with closing(AdminApi(stack)) as api:
        yield api


def set_disabled(admin: AdminApi, client: tf.AppClient, disabled: bool) -> None:
    response = admin.patch(f"/admin/clients/{client.client_id}", json={"disabled": disabled})
    assert response.status_code == 200, response.text
    assert response.json()["disabled"] is disabled


def unknown(client: tf.AppClient) -> tf.AppClient:
    """A client nobody registered, presenting what ``client`` presents."""
    return tf.AppClient(tf.unique("nobody"), client.secret, client.pk)


def answer(response: httpx.Response) -> tuple[int, Any, str | None]:
    return response.status_code, response.json(), response.headers.get("www-authenticate")


def client_credentials(http: httpx.Client, client: tf.AppClient) -> httpx.Response:
    form = {"grant_type": "client_credentials", "scope": ORDERS_READ}
    return http.post("/oauth2/token", data=form, headers=client.basic())


def test_client_credentials_of_a_disabled_client_is_invalid_client(
    http: httpx.Client, stack: Stack, admin: AdminApi, orders_audience: str
) -> None:
    machine = tf.create_client(stack, scopes=[ORDERS_READ], grant_types=["client_credentials"])
    assert client_credentials(http, machine).status_code == 200

    set_disabled(admin, machine, True)
    refused = client_credentials(http, machine)
    assert_error(refused, 401, "invalid_client")
    assert refused.headers["www-authenticate"].startswith("Basic")
    assert answer(refused) == answer(client_credentials(http, unknown(machine)))

    set_disabled(admin, machine, False)
    assert client_credentials(http, machine).status_code == 200


def test_a_disabled_public_client_cannot_refresh_until_enabled_again(
    http: httpx.Client, stack: Stack, admin: AdminApi, person: tf.Person
) -> None:
    spa = tf.create_client(stack, public=True)
    refresh_token = tokens(http, stack, spa, person)["refresh_token"]

    set_disabled(admin, spa, True)
    refused = tf.refresh(http, spa, refresh_token)
    assert_error(refused, 401, "invalid_client")
    assert answer(refused) == answer(tf.refresh(http, unknown(spa), refresh_token))

    # Disabling revokes nothing: enabled again, the application goes on where it was.
    set_disabled(admin, spa, False)
    renewed = tf.refresh(http, spa, refresh_token)
    assert renewed.status_code == 200, renewed.text


def test_a_disabled_public_client_cannot_redeem_its_code(
    http: httpx.Client, stack: Stack, admin: AdminApi, person: tf.Person
) -> None:
    spa = tf.create_client(stack, public=True)
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(stack, spa, person, challenge=challenge)
    set_disabled(admin, spa, True)
    refused = tf.exchange(http, spa, code, verifier=verifier, auth="post")
    assert_error(refused, 401, "invalid_client")


def test_a_disabled_device_client_gets_invalid_client_when_it_polls(
    http: httpx.Client, stack: Stack, admin: AdminApi
) -> None:
    device = tf.create_client(stack, public=True, grant_types=[GRANT_TYPE_DEVICE_CODE])
    started = http.post(
        "/oauth2/device_authorization", data={"client_id": device.client_id, "scope": "openid"}
    )
    assert started.status_code == 200, started.text
    poll = {
        "grant_type": GRANT_TYPE_DEVICE_CODE,
        "device_code": started.json()["device_code"],
        "client_id": device.client_id,
    }
    assert_error(http.post("/oauth2/token", data=poll), 400, "authorization_pending")
    set_disabled(admin, device, True)
    assert_error(http.post("/oauth2/token", data=poll), 401, "invalid_client")


def pushed_request() -> dict[str, str]:
    return {
        "response_type": "code",
        "redirect_uri": tf.REDIRECT,
        "scope": "openid",
        "code_challenge": tf.pkce_pair()[1],
        "code_challenge_method": "S256",
    }


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/oauth2/par", None),
        ("/oauth2/introspect", {"token": "anything"}),
        ("/oauth2/revoke", {"token": "anything"}),
        ("/oauth2/device_authorization", {"scope": "openid"}),
    ],
)
def test_every_authenticated_endpoint_refuses_a_disabled_client_as_unknown(
    http: httpx.Client, stack: Stack, admin: AdminApi, path: str, form: dict[str, str] | None
) -> None:
    client = tf.create_client(
        stack, grant_types=["authorization_code", "refresh_token", GRANT_TYPE_DEVICE_CODE]
    )
    data = form if form is not None else pushed_request()
    assert http.post(path, data=data, headers=client.basic()).status_code in (200, 201)
    set_disabled(admin, client, True)
    refused = http.post(path, data=data, headers=client.basic())
    assert_error(refused, 401, "invalid_client")
    assert answer(refused) == answer(http.post(path, data=data, headers=unknown(client).basic()))


def authorize(http: httpx.Client, client_id: str) -> httpx.Response:
    _verifier, challenge = tf.pkce_pair()
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": tf.REDIRECT,
        "scope": "openid",
        "state": "s-1",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    return http.get("/oauth2/authorize", params=params)


def test_authorize_shows_a_disabled_client_the_unknown_client_page(
    http: httpx.Client, stack: Stack, admin: AdminApi
) -> None:
    spa = tf.create_client(stack, public=True)
    started = authorize(http, spa.client_id)
    assert started.status_code == 302  # to the sign-in page: the client is usable
    set_disabled(admin, spa, True)

    refused = authorize(http, spa.client_id)
    assert refused.status_code == 400, refused.text
    assert "location" not in refused.headers  # never sent to its redirect URI
    assert refused.headers["content-type"].startswith("text/html")
    nobody = authorize(http, tf.unique("nobody"))
    assert (refused.status_code, refused.content) == (nobody.status_code, nobody.content)
