"""Constants and assertions shared by the token endpoint's tests."""

from __future__ import annotations

from typing import Any

import httpx

from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

ORDERS_READ = "orders-tokentest:orders:read"
ORDERS_WRITE = "orders-tokentest:orders:write"


def assert_error(response: httpx.Response, status: int, error: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"
    body: dict[str, Any] = response.json()
    assert body["error"] == error, body
    assert set(body) <= {"error", "error_description"}
    return body


def tokens(
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
