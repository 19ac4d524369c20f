"""DPoP (RFC 9449) with oauth4webapi, through the proxy (``node/oauth4webapi-dpop.mjs``).

A public client registered with ``dpop_bound_access_tokens`` runs the code flow with a
DPoP key: the person signs in in the browser, the library redeems the code with a proof,
calls userinfo with the ``DPoP`` scheme, refreshes with the same key and then tries the
new refresh token with another key (refused, ``invalid_grant``: a public client's refresh
token is bound). A confidential client gets a DPoP-bound token by client_credentials,
reads ``/admin/clients`` with it, has an API validate it offline with the library's
``validateJwtAccessToken`` (``cnf.jkt`` against the proof's key), and is refused when it
sends the same token as a ``Bearer`` token.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from idp_common.protocol.constants import SCOPE_IDP_CLIENTS_READ
from tests.harness import records
from tests.harness.api import ApiClient
from tests.harness.stack import Stack
from tests.interop.support import browser_sign_in, run_node

pytestmark = pytest.mark.e2e

SCRIPT = "oauth4webapi-dpop.mjs"
REDIRECT = "http://127.0.0.1:9/callback"
PUBLIC_SCOPE = "openid profile email offline_access"


def _created(response: Any) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _register(admin: ApiClient) -> dict[str, Any]:
    n = uuid.uuid4().hex[:8]
    public = _created(
        admin.post(
            "/admin/clients",
            json={
                "name": f"DPoP SPA {n}",
                "type": "public",
                "redirectUris": [REDIRECT],
                "postLogoutRedirectUris": [],
                "grantTypes": ["authorization_code", "refresh_token"],
                "dpop_bound_access_tokens": True,
            },
        )
    )
    scopes = {"scopes": PUBLIC_SCOPE.split()}
    assert admin.put(f"/admin/clients/{public['client_id']}/scopes", json=scopes).status_code == 200
    machine = _created(
        admin.post(
            "/admin/clients",
            json={
                "name": f"DPoP machine {n}",
                "type": "confidential",
                "redirectUris": [],
                "postLogoutRedirectUris": [],
                "grantTypes": ["client_credentials"],
            },
        )
    )
    scopes = {"scopes": [SCOPE_IDP_CLIENTS_READ]}
    assert (
        admin.put(f"/admin/clients/{machine['client_id']}/scopes", json=scopes).status_code == 200
    )
    return {
        "public": {
            "client_id": public["client_id"],
            "redirect_uri": REDIRECT,
            "scope": PUBLIC_SCOPE,
        },
        "machine": {
            "client_id": machine["client_id"],
            "client_secret": machine["client_secret"],
            "scope": SCOPE_IDP_CLIENTS_READ,
        },
    }


def test_oauth4webapi_dpop_code_flow_refresh_userinfo_and_client_credentials(
    stack: Stack, admin: ApiClient
) -> None:
    config = {"issuer": stack.issuer, "api_audience": f"{stack.issuer}/api", **_register(admin)}
    person = records.create_user(stack)
    started = run_node(SCRIPT, {"step": "authorize", **config})
    callback = browser_sign_in(stack, started["url"], person)
    result = run_node(
        SCRIPT, {"step": "redeem", **config, **started["checks"], "callback": callback}
    )

    assert result["dpop_signing_alg_values_supported"] == ["RS256", "PS256", "ES256", "EdDSA"]
    code = result["code"]
    assert code["access_token"]["claims"]["cnf"] == {"jkt": code["jkt"]}
    assert code["userinfo"]["sub"] == person.id
    assert code["userinfo"]["email"] == person.email
    assert code["refresh"]["token_type"] == "dpop"
    assert code["refresh"]["access_token"]["claims"]["cnf"] == {"jkt": code["jkt"]}
    assert code["refresh_with_another_key"] == {"error": "invalid_grant", "status": 400}

    machine = result["machine"]
    assert machine["admin_status"] == 200
    assert machine["api_claims"]["cnf"] == {"jkt": machine["jkt"]}
    assert machine["api_claims"]["client_id"] == config["machine"]["client_id"]
    assert machine["bearer"]["status"] == 401
