"""Helpers shared by the ``/admin/clients`` tests: bodies, stored rows, a machine client."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from idp_common.protocol.constants import SCOPE_IDP_CLIENTS_READ, SCOPE_IDP_CLIENTS_WRITE
from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.admin.contract import AdminApi

READ, WRITE = SCOPE_IDP_CLIENTS_READ, SCOPE_IDP_CLIENTS_WRITE
UNKNOWN = "/admin/clients/no-such-client"


def body(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "Orders web",
        "type": "confidential",
        "redirectUris": ["https://orders.example/cb"],
        "postLogoutRedirectUris": ["https://orders.example/bye"],
        "backchannelLogoutUri": "https://orders.example/bcl",
        "grantTypes": ["authorization_code", "refresh_token"],
        "skipConsent": False,
    }
    return {**base, **overrides}


def create(api: AdminApi, **overrides: Any) -> dict[str, Any]:
    response = api.post("/admin/clients", json=body(**overrides))
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def client_row(stack: Stack, client_id: str) -> dict[str, Any] | None:
    rows = query(stack, "SELECT * FROM clients WHERE client_id = $1", client_id)
    return rows[0] if rows else None


def secret_rows(stack: Stack, client_id: str) -> list[dict[str, Any]]:
    return query(
        stack,
        "SELECT s.* FROM client_secrets s JOIN clients c ON c.id = s.client_pk "
        "WHERE c.client_id = $1",
        client_id,
    )


def machine_client(admin_api: AdminApi, stack: Stack, scope: str | None = None) -> dict[str, Any]:
    """A confidential ``client_credentials`` client holding ``scope`` (by default one scope
    of a fresh API)."""
    if scope is None:
        scope = f"{tf.unique('rot')}:things:read"
        tf.create_api(stack, [scope])
    created = create(
        admin_api,
        redirectUris=[],
        postLogoutRedirectUris=[],
        backchannelLogoutUri=None,
        grantTypes=["client_credentials"],
    )
    response = admin_api.put(
        f"/admin/clients/{created['client_id']}/scopes", json={"scopes": [scope]}
    )
    assert response.status_code == 200, response.text
    return created


def client_credentials(http: httpx.Client, client_id: str, secret: str) -> httpx.Response:
    auth = tf.AppClient(client_id, secret, uuid.uuid4())
    return http.post(
        "/oauth2/token", data={"grant_type": "client_credentials"}, headers=auth.basic()
    )
