"""``POST /oauth2/token`` with ``grant_type=client_credentials``: scopes, the default
scope, and refusal to public clients (RFC 6749 4.4)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.test_token_endpoint.support import (
    ORDERS_READ,
    ORDERS_WRITE,
    assert_error,
)

pytestmark = pytest.mark.integration


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
