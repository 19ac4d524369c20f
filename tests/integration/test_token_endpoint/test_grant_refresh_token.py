"""``POST /oauth2/token`` with ``grant_type=refresh_token``: rotation, reuse revoking the
family, client binding and concurrent refreshes (RFC 6749 section 6)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from idp_common.protocol.oidc_core_claims import at_hash
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.test_token_endpoint.support import (
    ORDERS_READ,
    assert_error,
    tokens,
)

pytestmark = pytest.mark.integration


def test_refresh_rotates(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person, jwks: dict[str, Any]
) -> None:
    first = tokens(http, stack, app, person)
    response = tf.refresh(http, app, first["refresh_token"])
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    second = response.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["scope"] == first["scope"]
    _, id_claims = tf.validate_jwt(stack, second["id_token"], jwks)
    assert "nonce" not in id_claims
    assert id_claims["at_hash"] == at_hash(second["access_token"])
    _, first_claims = tf.validate_jwt(stack, first["id_token"], jwks)
    assert id_claims["sid"] == first_claims["sid"]  # the session it was issued in
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
    first = tokens(http, stack, spa, person)
    response = tf.refresh(http, spa, first["refresh_token"])
    assert response.status_code == 200, response.text


def test_reused_refresh_token_revokes_the_family(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    first = tokens(http, stack, app, person)
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
    first = tokens(http, stack, app, person)
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
        first = tokens(sync_http, stack, app, person)
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
