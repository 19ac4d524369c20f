"""``jwks`` / ``jwks_uri`` of a ``private_key_jwt`` client and the sealed secret of a
``client_secret_jwt`` client (issue #25): the admin API's rules, naming the field, and
what is stored (``admin_service.client_keys``, ``idp_common.storage.repos.clients``)."""

from __future__ import annotations

import hashlib
import warnings
from typing import Any

import pytest
from joserfc.jwk import RSAKey

from admin_service.client_keys import MAX_KEYS, key_errors
from admin_service.client_rules import uri_problem
from idp_common.config import load_settings
from idp_common.crypto.secretbox import client_secret_context, open_sealed
from idp_common.storage.repos.client_shapes import ClientSettings
from tests.harness.client_assertions import new_key, public_jwks
from tests.harness.rows import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_problem
from tests.integration.admin.test_clients.support import client_row, create, secret_rows

MACHINE = {"redirectUris": [], "grantTypes": ["client_credentials"]}
PKJ = "private_key_jwt"


def _private_jwk() -> dict[str, Any]:
    return dict(new_key("RS256").as_dict(private=True))


def _small_rsa() -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(RSAKey.generate_key(1024).as_dict(private=False))


@pytest.mark.integration
@pytest.mark.parametrize(
    ("fields", "field"),
    [
        pytest.param({}, "token_endpoint_auth_method", id="no-keys"),
        pytest.param({"jwks": {"keys": [_private_jwk()]}}, "jwks.keys[0]", id="private-key"),
        pytest.param({"jwks": {"keys": [_small_rsa()]}}, "jwks.keys[0]", id="rsa-1024"),
        pytest.param(
            {"jwks": {"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}}, "jwks.keys[0]", id="oct"
        ),
        pytest.param({"jwks": {"keys": [{"kty": "RSA", "n": "x"}]}}, "jwks.keys[0]", id="broken"),
        pytest.param({"jwks": [public_jwks(new_key("ES256"))]}, "jwks", id="not-an-object"),
        pytest.param({"jwks": {"keys": []}}, "jwks", id="empty"),
        pytest.param(
            {"jwks": public_jwks(*[new_key("ES256") for _ in range(MAX_KEYS + 1)])},
            "jwks",
            id="too-many",
        ),
        pytest.param(
            {"jwks": public_jwks(new_key("ES256")), "jwks_uri": "https://keys.example/jwks"},
            "jwks_uri",
            id="both",
        ),
        pytest.param({"jwks_uri": "http://keys.example/jwks"}, "jwks_uri", id="plain-http"),
        pytest.param({"jwks_uri": "https://keys.example/j#x"}, "jwks_uri", id="fragment"),
    ],
)
def test_private_key_jwt_keys_are_checked(
    admin_api: AdminApi, fields: dict[str, Any], field: str
) -> None:
    body = {"name": "Keys", "type": "confidential", "token_endpoint_auth_method": PKJ}
    response = admin_api.post("/admin/clients", json={**body, **MACHINE, **fields})
    assert_problem(response, 422, field=field)


@pytest.mark.integration
def test_keys_stored_and_patched(admin_api: AdminApi, stack: Stack) -> None:
    jwks = public_jwks(new_key("ES256"), new_key("RS256"))
    created = create(admin_api, token_endpoint_auth_method=PKJ, jwks=jwks, **MACHINE)
    assert created["jwks"] == jwks and created["jwks_uri"] is None
    path = f"/admin/clients/{created['client_id']}"
    moved = {"jwks": None, "jwks_uri": "https://keys.example/jwks.json"}
    patched = admin_api.patch(path, json=moved)
    assert patched.status_code == 200, patched.text
    row = client_row(stack, created["client_id"])
    assert row is not None and row["jwks"] is None
    assert row["jwks_uri"] == "https://keys.example/jwks.json"


@pytest.mark.integration
def test_jwks_uri_set_on_a_client_made_before(admin_api: AdminApi, stack: Stack) -> None:
    """A client whose ``jwks`` was never set gets a ``jwks_uri`` by PATCH, even one written
    before issue #25, whose ``jwks`` is JSON ``null`` rather than SQL NULL."""
    created = create(admin_api, **MACHINE)
    sql = "UPDATE clients SET jwks = 'null'::jsonb WHERE client_id = $1 RETURNING id"
    assert query(stack, sql, created["client_id"])
    path = f"/admin/clients/{created['client_id']}"
    change = {"token_endpoint_auth_method": PKJ, "jwks_uri": "https://keys.example/k"}
    response = admin_api.patch(path, json=change)
    assert response.status_code == 200, response.text
    assert response.json()["jwks_uri"] == "https://keys.example/k"


@pytest.mark.parametrize(
    "uri",
    [
        "https://127.0.0.1/jwks",
        "https://10.1.2.3/jwks",
        "https://169.254.169.254/latest",
        "https://keys.internal/jwks",
        "http://localhost:8080/jwks",
    ],
)
def test_non_global_jwks_uri_refused_unless_allowed(uri: str) -> None:
    settings = ClientSettings(
        name="k",
        redirect_uris=[],
        post_logout_redirect_uris=[],
        backchannel_logout_uri=None,
        grant_types=["client_credentials"],
        skip_consent=False,
        token_endpoint_auth_method=PKJ,
        jwks_uri=uri,
    )
    refused = key_errors(settings, allow_private=False, uri_problem=uri_problem)
    assert [e.field for e in refused] == ["jwks_uri"]
    assert "SVC_CLIENT_JWKS_ALLOW_PRIVATE" in refused[0].message
    assert key_errors(settings, allow_private=True, uri_problem=uri_problem) == []


def _open(stack: Stack, client_id: str) -> str:
    (row,) = secret_rows(stack, client_id)
    key = load_settings(env=stack.env).secrets_key_bytes
    assert key is not None and row["sealed"] is not None
    context = client_secret_context(row["client_pk"])
    return open_sealed(bytes(row["sealed"]), key=key, context=context).decode()


@pytest.mark.integration
def test_client_secret_jwt_secret_sealed_at_creation_and_rotation(
    admin_api: AdminApi, stack: Stack
) -> None:
    created = create(admin_api, token_endpoint_auth_method="client_secret_jwt", **MACHINE)
    assert _open(stack, created["client_id"]) == created["client_secret"]
    rotated = admin_api.post(f"/admin/clients/{created['client_id']}/rotate-secret").json()
    assert _open(stack, created["client_id"]) == rotated["client_secret"]
    (row,) = secret_rows(stack, created["client_id"])
    assert bytes(row["digest"]) == hashlib.sha256(rotated["client_secret"].encode()).digest()


@pytest.mark.integration
def test_other_methods_keep_no_sealed_secret(admin_api: AdminApi, stack: Stack) -> None:
    for method in ("client_secret_basic", "client_secret_post"):
        created = create(admin_api, token_endpoint_auth_method=method, **MACHINE)
        admin_api.post(f"/admin/clients/{created['client_id']}/rotate-secret")
        (row,) = secret_rows(stack, created["client_id"])
        assert row["sealed"] is None


@pytest.mark.integration
def test_switching_away_from_client_secret_jwt_drops_the_sealed_copy(
    admin_api: AdminApi, stack: Stack
) -> None:
    created = create(admin_api, token_endpoint_auth_method="client_secret_jwt", **MACHINE)
    assert _open(stack, created["client_id"]) == created["client_secret"]
    path = f"/admin/clients/{created['client_id']}"
    switched = admin_api.patch(path, json={"token_endpoint_auth_method": "client_secret_post"})
    assert switched.status_code == 200, switched.text
    (row,) = secret_rows(stack, created["client_id"])
    assert row["sealed"] is None
    assert bytes(row["digest"]) == hashlib.sha256(created["client_secret"].encode()).digest()
