"""The SCIM endpoints in tests: a real machine client (created through the admin API,
holding ``idp:scim:read``/``idp:scim:write``) takes a token at ``/oauth2/token`` with the
client credentials grant, and calls ``/scim/v2`` through the proxy, raw with httpx or
with scim2-client."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import httpx
import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient

from idp_common.protocol.constants import SCOPE_IDP_SCIM_READ, SCOPE_IDP_SCIM_WRITE
from tests.harness.api import ApiClient, fresh_address
from tests.harness.records import query
from tests.harness.stack import Stack

SCIM_JSON = "application/scim+json"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"
USER = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
EXTENSION = "urn:ietf:params:scim:schemas:extension:idp:2.0:User"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
BULK = "urn:ietf:params:scim:api:messages:2.0:BulkRequest"
SEARCH = "urn:ietf:params:scim:api:messages:2.0:SearchRequest"
BOTH = (SCOPE_IDP_SCIM_READ, SCOPE_IDP_SCIM_WRITE)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def machine_token(stack: Stack, admin: ApiClient, scopes: Sequence[str] = BOTH) -> str:
    """A client-credentials access token of a new confidential client holding ``scopes``."""
    body = {
        "name": unique("SCIM provisioning"),
        "type": "confidential",
        "grantTypes": ["client_credentials"],
        "redirectUris": [],
    }
    created = admin.post("/admin/clients", json=body)
    assert created.status_code == 201, created.text
    client = created.json()
    path = f"/admin/clients/{client['client_id']}/scopes"
    granted = admin.put(path, json={"scopes": list(scopes)})
    assert granted.status_code == 200, granted.text
    answer = httpx.post(
        stack.proxy_url + "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": " ".join(scopes)},
        auth=(client["client_id"], client["client_secret"]),
        timeout=20,
    )
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["access_token"]
    return token


def scim_http(stack: Stack, token: str | None) -> httpx.Client:
    """httpx at ``/scim/v2`` through the proxy (a fresh client address: the failed-token
    limit of one test does not reach another)."""
    headers = {"X-Forwarded-For": fresh_address()}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.Client(base_url=stack.proxy_url + "/scim/v2", headers=headers, timeout=20)


def scim_client(stack: Stack, token: str) -> SyncSCIMClient:
    """scim2-client, which learns the schemas (the profile extension included) from
    ``/Schemas``, ``/ResourceTypes`` and ``/ServiceProviderConfig``."""
    http = httpx2.Client(
        base_url=stack.proxy_url + "/scim/v2",
        headers={"Authorization": f"Bearer {token}", "X-Forwarded-For": fresh_address()},
        timeout=20,
    )
    client = SyncSCIMClient(http)
    client.discover()
    return client


def assert_scim_error(
    response: httpx.Response, status: int, scim_type: str | None = None, naming: str = ""
) -> dict[str, Any]:
    """A SCIM error body (RFC 7644 §3.12) with ``status`` and ``scimType``, whose detail
    names ``naming``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(SCIM_JSON), response.headers
    body: dict[str, Any] = response.json()
    assert body["schemas"] == [ERROR]
    assert body["status"] == str(status)
    assert body.get("scimType") == scim_type, body
    assert naming in body["detail"], body
    return body


def user_row(stack: Stack, user_id: str) -> dict[str, Any] | None:
    rows = query(
        stack,
        "SELECT email, username, display_name, disabled, external_id, updated_at "
        "FROM users WHERE id = $1::uuid",
        user_id,
    )
    return dict(rows[0]) if rows else None


def profile_values(stack: Stack, user_id: str) -> dict[str, str]:
    rows = query(
        stack,
        "SELECT f.key, v.value FROM profile_values v JOIN profile_fields f ON f.id = v.field_id "
        "WHERE v.user_id = $1::uuid",
        user_id,
    )
    return {str(r["key"]): str(r["value"]) for r in rows}


def new_user_body(**more: Any) -> dict[str, Any]:
    name = unique("scim")
    return {
        "schemas": [USER],
        "userName": name,
        "displayName": "Provisioned Person",
        "emails": [{"value": f"{name}@example.com", "type": "work", "primary": True}],
        **more,
    }
