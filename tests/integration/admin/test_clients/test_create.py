"""``POST /admin/clients``: the secret shown once, its stored digest, defaults and refusals."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest

from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_clients.support import (
    WRITE,
    body,
    client_row,
    create,
    secret_rows,
)

pytestmark = pytest.mark.integration


def test_create_confidential_client_returns_secret_once_and_stores_digest(
    admin_api: AdminApi, stack: Stack
) -> None:
    created = create(admin_api)
    secret = created["client_secret"]
    assert len(base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))) >= 32
    assert created == {
        "client_id": created["client_id"],
        "client_secret": secret,
        "name": "Orders web",
        "type": "confidential",
        "redirectUris": ["https://orders.example/cb"],
        "postLogoutRedirectUris": ["https://orders.example/bye"],
        "backchannelLogoutUri": "https://orders.example/bcl",
        "grantTypes": ["authorization_code", "refresh_token"],
        "skipConsent": False,
        "disabled": False,  # enabled unless created disabled
        "scopes": [],
        "createdAt": created["createdAt"],
        "updatedAt": created["updatedAt"],
        "id_token_signed_response_alg": "RS256",  # issue #24: the defaults
        "userinfo_signed_response_alg": None,
        "token_endpoint_auth_method": "client_secret_basic",  # issue #25: the defaults
        "jwks": None,
        "jwks_uri": None,
        "require_pushed_authorization_requests": False,
        "dpop_bound_access_tokens": False,
        "securityProfile": None,
        "tokenExchangeAudiences": [],
        "allowedWebOrigins": [],
        "logoUri": None,  # issue #28: from the client's brand, read-only
        "tosUri": None,
        "policyUri": None,
    }
    assert created["client_id"].replace("-", "").replace("_", "").isalnum()
    rows = secret_rows(admin_api.stack, created["client_id"])
    assert len(rows) == 1
    assert bytes(rows[0]["digest"]) == hashlib.sha256(secret.encode()).digest()
    assert secret not in repr(rows) and secret.encode() not in bytes(rows[0]["digest"])
    stored = client_row(stack, created["client_id"])
    assert stored is not None and secret not in repr(stored)
    (audit_row,) = admin_api.audit_rows(created["client_id"])
    assert audit_row["action"] == "client.create"
    assert audit_row["status_code"] == 201
    assert audit_row["actor"] == admin_api.actor
    assert audit_row["target_type"] == "client"
    assert secret not in json.dumps(audit_row, default=str)
    # Reading it again never shows the secret.
    read = admin_api.get(f"/admin/clients/{created['client_id']}").json()
    assert "client_secret" not in read and secret not in json.dumps(read)
    assert set(read) == set(created) - {"client_secret"}


def test_create_public_client_has_no_secret(admin_api: AdminApi) -> None:
    created = create(
        admin_api,
        type="public",
        backchannelLogoutUri=None,
        redirectUris=["http://127.0.0.1:8400/cb", "http://[::1]/cb", "http://localhost/cb"],
    )
    assert "client_secret" not in created
    assert created["type"] == "public"
    assert created["backchannelLogoutUri"] is None
    assert secret_rows(admin_api.stack, created["client_id"]) == []


def test_create_minimal_body_uses_defaults(admin_api: AdminApi) -> None:
    response = admin_api.post(
        "/admin/clients",
        json={"name": "Minimal", "type": "public", "redirectUris": ["https://m.example/cb"]},
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["grantTypes"] == ["authorization_code"]
    assert created["postLogoutRedirectUris"] == []
    assert created["skipConsent"] is False


def test_create_is_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "POST", "/admin/clients", WRITE, json=body())


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"redirectUris": ["http://orders.example/cb"]}, "redirectUris[0]"),
        ({"redirectUris": ["https://a.example/cb", "https://a.example/cb#x"]}, "redirectUris[1]"),
        ({"redirectUris": ["/cb"]}, "redirectUris[0]"),
        ({"redirectUris": ["https://a.example/cb", "https://a.example/cb"]}, "redirectUris[1]"),
        ({"redirectUris": ["com.example.app:/cb"]}, "redirectUris[0]"),
        ({"postLogoutRedirectUris": ["ftp://a.example/"]}, "postLogoutRedirectUris[0]"),
        ({"backchannelLogoutUri": "http://rp.example/bcl"}, "backchannelLogoutUri"),
        # A host IDNA cannot decode: the dispatcher could never send to it.
        ({"backchannelLogoutUri": "https://xn--zz.example/bcl"}, "backchannelLogoutUri"),
        ({"backchannelLogoutUri": "http://127.0.0.1:99999/bcl"}, "backchannelLogoutUri"),
        ({"grantTypes": ["implicit"]}, "grantTypes[0]"),
        ({"grantTypes": []}, "grantTypes"),
        ({"type": "public", "grantTypes": ["client_credentials"]}, "grantTypes[0]"),
        ({"redirectUris": [], "grantTypes": ["authorization_code"]}, "redirectUris"),
        ({"type": "service"}, "type"),
        ({"name": "  "}, "name"),
        ({"name": 42}, "name"),
        ({"redirectUris": "https://a.example/cb"}, "redirectUris"),
        ({"clientSecret": "mine"}, "clientSecret"),
    ],
)
def test_create_rejects_bad_input_naming_the_field(
    admin_api: AdminApi, overrides: dict[str, Any], field: str
) -> None:
    before = query(admin_api.stack, "SELECT count(*) AS n FROM clients")[0]["n"]
    response = admin_api.post("/admin/clients", json=body(**overrides))
    assert_problem(response, 422, field=field)
    assert query(admin_api.stack, "SELECT count(*) AS n FROM clients")[0]["n"] == before


def test_create_requires_name_and_type(admin_api: AdminApi) -> None:
    assert_problem(admin_api.post("/admin/clients", json={"type": "public"}), 422, field="name")
    assert_problem(admin_api.post("/admin/clients", json={"name": "x"}), 422, field="type")
