"""The signing-algorithm fields of ``/admin/apis`` and ``/admin/clients`` (issue #24):
``accessTokenSigningAlg`` per API, ``id_token_signed_response_alg`` and
``userinfo_signed_response_alg`` per client (their OIDC Registration names). A value
outside RS256, PS256, ES256 and EdDSA, or one the provider holds no key for, is refused
with 400 problem+json naming the field, and nothing is written.

The harness's stack holds a key for every algorithm; the "no key" cases run against a
second admin process whose key directory holds the RS256 keys only.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_problem
from tests.integration.admin.test_apis.support import provider_api, unique_name
from tests.integration.admin.test_clients.support import body as client_body
from tests.integration.admin.test_clients.support import client_row, create

pytestmark = pytest.mark.integration

CODE = "admin.signing_alg_refused"
API_FIELD = "accessTokenSigningAlg"
ID_FIELD = "id_token_signed_response_alg"
USERINFO_FIELD = "userinfo_signed_response_alg"
REFUSED = ["HS256", "none", "RS512", "es256", "Ed25519", ""]


@pytest.fixture(scope="module")
def rs256_only_admin(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AdminApi]:
    """An admin process that holds only the RS256 keys (the top level of the directory)."""
    keys: Path = tmp_path_factory.mktemp("rs256-only") / "keys"
    keys.mkdir(mode=0o700)
    for key in stack.key_dir.glob("*.pem"):
        shutil.copy2(key, keys / key.name)
    with stack.extra_service("admin", {"SVC_KEY_DIR": str(keys)}) as url:
        api = AdminApi(stack, base_url=url)
        try:
            yield api
        finally:
            api.close()


def api_count(stack: Stack) -> int:
    return int(query(stack, "SELECT count(*) AS n FROM apis")[0]["n"])  # type: ignore[call-overload]


def client_count(stack: Stack) -> int:
    return int(query(stack, "SELECT count(*) AS n FROM clients")[0]["n"])  # type: ignore[call-overload]


def assert_refused(response: Any, field: str, message: str | None = None) -> None:
    assert_problem(response, 400, field=field)
    problem = response.json()
    assert problem["code"] == CODE
    assert problem["detail"].startswith(f"invalid field {field}: "), problem
    if message is not None:
        assert problem["detail"] == f"invalid field {field}: {message}"
        assert problem["errors"] == [{"field": field, "message": message}]


def no_key(alg: str) -> str:
    return f"no {alg} signing key; generate one with idp keys generate --alg {alg}"


# --- APIs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("alg", ["RS256", "PS256", "ES256", "EdDSA"])
def test_create_api_with_each_algorithm(admin_api: AdminApi, alg: str) -> None:
    name = unique_name()
    response = admin_api.post(
        "/admin/apis", json={"name": name, "audience": f"urn:{name}", API_FIELD: alg}
    )
    assert response.status_code == 201, response.text
    created = response.json()
    assert created[API_FIELD] == alg
    assert admin_api.get(f"/admin/apis/{created['id']}").json()[API_FIELD] == alg
    stored = query(
        admin_api.stack,
        "SELECT access_token_signing_alg FROM apis WHERE id = $1",
        uuid.UUID(created["id"]),
    )
    assert stored == [{"access_token_signing_alg": alg}]


def test_an_api_defaults_to_rs256_and_can_change(admin_api: AdminApi) -> None:
    name = unique_name()
    created = admin_api.post("/admin/apis", json={"name": name, "audience": f"urn:{name}"}).json()
    assert created[API_FIELD] == "RS256"
    patched = admin_api.patch(f"/admin/apis/{created['id']}", json={API_FIELD: "EdDSA"})
    assert patched.status_code == 200, patched.text
    assert patched.json()[API_FIELD] == "EdDSA"
    assert patched.json()["name"] == name
    rows = admin_api.audit_rows(created["id"])
    assert rows[-1]["action"] == "api.update"
    assert '"accessTokenSigningAlg"' in str(rows[-1]["detail"])


@pytest.mark.parametrize("alg", REFUSED)
def test_create_api_with_an_unsupported_algorithm_is_refused(admin_api: AdminApi, alg: str) -> None:
    before = api_count(admin_api.stack)
    name = unique_name()
    response = admin_api.post(
        "/admin/apis", json={"name": name, "audience": f"urn:{name}", API_FIELD: alg}
    )
    assert_refused(response, API_FIELD)
    assert api_count(admin_api.stack) == before


def test_patch_api_with_an_unsupported_algorithm_changes_nothing(admin_api: AdminApi) -> None:
    name = unique_name()
    created = admin_api.post("/admin/apis", json={"name": name, "audience": f"urn:{name}"}).json()
    response = admin_api.patch(
        f"/admin/apis/{created['id']}", json={"name": unique_name(), API_FIELD: "HS256"}
    )
    assert_refused(response, API_FIELD)
    assert admin_api.get(f"/admin/apis/{created['id']}").json() == created


def test_the_providers_own_api_stays_rs256(admin_api: AdminApi) -> None:
    own = provider_api(admin_api)
    assert own[API_FIELD] == "RS256"
    response = admin_api.patch(f"/admin/apis/{own['id']}", json={API_FIELD: "ES256"})
    assert_problem(response, 409)
    assert response.json()["code"] == "admin.api_protected"
    same = admin_api.patch(f"/admin/apis/{own['id']}", json={API_FIELD: "RS256"})
    assert same.status_code == 200, same.text


@pytest.mark.parametrize("alg", ["PS256", "ES256", "EdDSA"])
def test_an_api_for_an_algorithm_without_a_key_is_refused(
    rs256_only_admin: AdminApi, alg: str
) -> None:
    stack = rs256_only_admin.stack
    before = api_count(stack)
    name = unique_name()
    response = rs256_only_admin.post(
        "/admin/apis", json={"name": name, "audience": f"urn:{name}", API_FIELD: alg}
    )
    assert_refused(response, API_FIELD, no_key(alg))
    assert api_count(stack) == before
    created = rs256_only_admin.post(
        "/admin/apis", json={"name": name, "audience": f"urn:{name}"}
    ).json()
    patched = rs256_only_admin.patch(f"/admin/apis/{created['id']}", json={API_FIELD: alg})
    assert_refused(patched, API_FIELD, no_key(alg))
    assert rs256_only_admin.get(f"/admin/apis/{created['id']}").json()[API_FIELD] == "RS256"


# --- Clients ------------------------------------------------------------------------------


def test_a_client_defaults_to_rs256_id_tokens_and_json_userinfo(admin_api: AdminApi) -> None:
    created = create(admin_api)
    assert created[ID_FIELD] == "RS256"
    assert created[USERINFO_FIELD] is None
    read = admin_api.get(f"/admin/clients/{created['client_id']}").json()
    assert (read[ID_FIELD], read[USERINFO_FIELD]) == ("RS256", None)


@pytest.mark.parametrize(
    ("id_alg", "userinfo_alg"),
    [("ES256", "EdDSA"), ("EdDSA", None), ("PS256", "ES256"), ("RS256", "RS256")],
)
def test_create_client_with_algorithms(
    admin_api: AdminApi, id_alg: str, userinfo_alg: str | None
) -> None:
    created = create(admin_api, **{ID_FIELD: id_alg, USERINFO_FIELD: userinfo_alg})
    assert (created[ID_FIELD], created[USERINFO_FIELD]) == (id_alg, userinfo_alg)
    assert "client_secret" in created
    row = client_row(admin_api.stack, created["client_id"])
    assert row is not None
    assert (row[ID_FIELD], row[USERINFO_FIELD]) == (id_alg, userinfo_alg)
    listed = admin_api.get("/admin/clients", params={"limit": 200}).json()["items"]
    assert any(c["client_id"] == created["client_id"] and c[ID_FIELD] == id_alg for c in listed)


def test_patch_client_algorithms_and_clear_userinfo(admin_api: AdminApi) -> None:
    client_id = create(admin_api)["client_id"]
    path = f"/admin/clients/{client_id}"
    patched = admin_api.patch(path, json={ID_FIELD: "EdDSA", USERINFO_FIELD: "ES256"})
    assert patched.status_code == 200, patched.text
    assert (patched.json()[ID_FIELD], patched.json()[USERINFO_FIELD]) == ("EdDSA", "ES256")
    audit = admin_api.audit_rows(client_id)[-1]
    assert ID_FIELD in str(audit["detail"])
    assert USERINFO_FIELD in str(audit["detail"])
    cleared = admin_api.patch(path, json={USERINFO_FIELD: None})
    assert cleared.status_code == 200, cleared.text
    assert (cleared.json()[ID_FIELD], cleared.json()[USERINFO_FIELD]) == ("EdDSA", None)


@pytest.mark.parametrize("field", [ID_FIELD, USERINFO_FIELD])
@pytest.mark.parametrize("alg", REFUSED)
def test_create_client_with_an_unsupported_algorithm_is_refused(
    admin_api: AdminApi, field: str, alg: str
) -> None:
    before = client_count(admin_api.stack)
    response = admin_api.post("/admin/clients", json=client_body(**{field: alg}))
    assert_refused(response, field)
    assert client_count(admin_api.stack) == before


def test_both_refused_fields_are_named(admin_api: AdminApi) -> None:
    response = admin_api.post(
        "/admin/clients", json=client_body(**{ID_FIELD: "none", USERINFO_FIELD: "HS256"})
    )
    assert_problem(response, 400, field=ID_FIELD)
    assert [e["field"] for e in response.json()["errors"]] == [ID_FIELD, USERINFO_FIELD]


@pytest.mark.parametrize("field", [ID_FIELD, USERINFO_FIELD])
@pytest.mark.parametrize("alg", ["PS256", "ES256", "EdDSA"])
def test_a_client_for_an_algorithm_without_a_key_is_refused(
    rs256_only_admin: AdminApi, field: str, alg: str
) -> None:
    stack = rs256_only_admin.stack
    before = client_count(stack)
    response = rs256_only_admin.post("/admin/clients", json=client_body(**{field: alg}))
    assert_refused(response, field, no_key(alg))
    assert client_count(stack) == before
    client_id = create(rs256_only_admin)["client_id"]
    patched = rs256_only_admin.patch(f"/admin/clients/{client_id}", json={field: alg})
    assert_refused(patched, field, no_key(alg))
    row = client_row(stack, client_id)
    assert row is not None
    assert (row[ID_FIELD], row[USERINFO_FIELD]) == ("RS256", None)
