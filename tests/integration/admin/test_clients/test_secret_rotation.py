"""``POST /admin/clients/{client_id}/secret``: a new secret, and the old one failing at once."""

from __future__ import annotations

import hashlib
import json

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_guarded, assert_problem
from tests.integration.admin.test_clients.support import (
    UNKNOWN,
    WRITE,
    client_credentials,
    create,
    machine_client,
    secret_rows,
)

pytestmark = pytest.mark.integration


def test_rotate_secret_returns_a_new_secret_and_stores_its_digest(
    admin_api: AdminApi, stack: Stack
) -> None:
    created = create(admin_api)
    client_id, old = created["client_id"], created["client_secret"]
    response = admin_api.post(f"/admin/clients/{client_id}/rotate-secret")
    assert response.status_code == 200, response.text
    rotated = response.json()
    assert set(rotated) == {"client_id", "client_secret"}
    assert rotated["client_id"] == client_id
    new = rotated["client_secret"]
    assert new != old and len(new) >= 43
    (row,) = secret_rows(stack, client_id)
    assert bytes(row["digest"]) == hashlib.sha256(new.encode()).digest()
    rows = admin_api.audit_rows(client_id)
    assert [r["action"] for r in rows] == ["client.create", "client.rotate_secret"]
    dumped = json.dumps(rows, default=str)
    assert old not in dumped and new not in dumped


def test_rotation_end_to_end_old_secret_fails_at_once(
    admin_api: AdminApi, stack: Stack, http: httpx.Client
) -> None:
    created = machine_client(admin_api, stack)
    client_id, old = created["client_id"], created["client_secret"]
    assert client_credentials(http, client_id, old).status_code == 200
    new = admin_api.post(f"/admin/clients/{client_id}/rotate-secret").json()["client_secret"]
    refused = client_credentials(http, client_id, old)
    assert refused.status_code == 401, refused.text
    assert refused.json()["error"] == "invalid_client"
    assert client_credentials(http, client_id, new).status_code == 200


def test_rotation_end_to_end_without_a_cached_record(
    admin_api: AdminApi, stack: Stack, http: httpx.Client
) -> None:
    """Rotation with nothing cached yet: the new secret works, the old one is refused."""
    created = machine_client(admin_api, stack)
    client_id, old = created["client_id"], created["client_secret"]
    new = admin_api.post(f"/admin/clients/{client_id}/rotate-secret").json()["client_secret"]
    refused = client_credentials(http, client_id, old)
    assert refused.status_code == 401, refused.text
    assert refused.json()["error"] == "invalid_client"
    granted = client_credentials(http, client_id, new)
    assert granted.status_code == 200, granted.text
    assert granted.json()["token_type"] == "Bearer"


def test_public_client_has_no_secret_to_rotate(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api, type="public")
    response = admin_api.post(f"/admin/clients/{created['client_id']}/rotate-secret")
    assert_problem(response, 409)
    assert secret_rows(stack, created["client_id"]) == []


def test_rotate_unknown_client_is_404(admin_api: AdminApi) -> None:
    assert_problem(admin_api.post(f"{UNKNOWN}/rotate-secret"), 404)


def test_rotate_is_guarded(admin_api: AdminApi) -> None:
    created = create(admin_api)
    assert_guarded(admin_api, "POST", f"/admin/clients/{created['client_id']}/rotate-secret", WRITE)
