"""``/admin/clients`` (spec part 4 "Admin: clients", DESIGN.md "Wire contracts" → Clients).

Each route: success, 401, 403, 404 for an unknown ``client_id``, 422 naming the field.
Also: the secret is returned once and stored only as its SHA-256 digest, never audited;
rotation works end to end at the token endpoint (issue 4, acceptance 5); deleting a client
takes its secret, scopes, codes, refresh tokens and consents with it; the console stays.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import SCOPE_IDP_CLIENTS_READ, SCOPE_IDP_CLIENTS_WRITE
from tests.harness import records
from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.admin.contract import AdminApi, assert_guarded, assert_problem

pytestmark = pytest.mark.integration
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


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    yield from tf.token_http(stack)


# --- POST /admin/clients ------------------------------------------------------------------


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
        "scopes": [],
        "createdAt": created["createdAt"],
        "updatedAt": created["updatedAt"],
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
    assert "client_secret" not in read and "secret" not in json.dumps(read).lower()


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


# --- GET /admin/clients -------------------------------------------------------------------


def test_list_with_limit_one_walks_every_client_once(admin_api: AdminApi, stack: Stack) -> None:
    for _ in range(3):
        create(admin_api)
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 1}
        if cursor:
            params["cursor"] = cursor
        response = admin_api.get("/admin/clients", params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        assert len(page["items"]) <= 1
        assert all("client_secret" not in item for item in page["items"])
        seen += [item["client_id"] for item in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    stored = query(stack, "SELECT client_id FROM clients ORDER BY client_id")
    assert seen == [r["client_id"] for r in stored]  # each once, in client_id order
    assert "console" in seen


def test_list_default_page_shape(admin_api: AdminApi) -> None:
    page = admin_api.get("/admin/clients").json()
    assert set(page) == {"items", "nextCursor"}
    console = next(item for item in page["items"] if item["client_id"] == "console")
    assert console["type"] == "public"
    assert "openid" in console["scopes"] and READ in console["scopes"]


def test_list_is_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/clients", READ)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"cursor": "bm90LWEtY3Vyc29y"}, "cursor"),
    ],
)
def test_list_rejects_bad_paging(admin_api: AdminApi, params: dict[str, Any], field: str) -> None:
    assert_problem(admin_api.get("/admin/clients", params=params), 422, field=field)


# --- GET /admin/clients/{client_id} -------------------------------------------------------


def test_get_client(admin_api: AdminApi) -> None:
    created = create(admin_api)
    admin_api.put(f"/admin/clients/{created['client_id']}/scopes", json={"scopes": ["openid"]})
    response = admin_api.get(f"/admin/clients/{created['client_id']}")
    assert response.status_code == 200, response.text
    read = response.json()
    expected = {k: v for k, v in created.items() if k not in ("client_secret", "updatedAt")}
    assert {k: v for k, v in read.items() if k != "updatedAt"} == {**expected, "scopes": ["openid"]}


@pytest.mark.parametrize("client_id", ["no-such-client", "%20", "x" * 300])
def test_get_unknown_client_is_404(admin_api: AdminApi, client_id: str) -> None:
    assert_problem(admin_api.get(f"/admin/clients/{client_id}"), 404)


def test_get_is_guarded(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/clients/console", READ)


# --- PATCH /admin/clients/{client_id} -----------------------------------------------------


def test_patch_changes_only_the_given_members(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}"
    response = admin_api.patch(
        path,
        json={
            "name": "Orders (new)",
            "redirectUris": ["https://orders.example/cb2"],
            "backchannelLogoutUri": None,
            "skipConsent": True,
        },
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated["name"] == "Orders (new)"
    assert updated["redirectUris"] == ["https://orders.example/cb2"]
    assert updated["backchannelLogoutUri"] is None
    assert updated["skipConsent"] is True
    assert updated["postLogoutRedirectUris"] == created["postLogoutRedirectUris"]
    assert updated["grantTypes"] == created["grantTypes"]
    assert updated["updatedAt"] >= created["updatedAt"]
    row = client_row(stack, created["client_id"])
    assert row is not None
    assert row["backchannel_logout_uri"] is None and row["skip_consent"] is True
    assert row["redirect_uris"] == ["https://orders.example/cb2"]
    audit_row = admin_api.audit_rows(created["client_id"])[-1]
    assert audit_row["action"] == "client.update"
    assert json.loads(str(audit_row["detail"]))["fields"] == [
        "name",
        "redirectUris",
        "backchannelLogoutUri",
        "skipConsent",
    ]


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"type": "public"}, "type"),
        ({"client_id": "mine"}, "client_id"),
        ({"redirectUris": ["http://evil.example/cb"]}, "redirectUris[0]"),
        ({"redirectUris": []}, "redirectUris"),
        ({"postLogoutRedirectUris": ["https://a.example/#top"]}, "postLogoutRedirectUris[0]"),
        ({"backchannelLogoutUri": "not a uri"}, "backchannelLogoutUri"),
        ({"grantTypes": ["authorization_code", "password"]}, "grantTypes[1]"),
        ({"name": ""}, "name"),
        ({"skipConsent": "yes"}, "skipConsent"),
    ],
)
def test_patch_rejects_bad_input_naming_the_field(
    admin_api: AdminApi, patch: dict[str, Any], field: str
) -> None:
    created = create(admin_api)
    response = admin_api.patch(f"/admin/clients/{created['client_id']}", json=patch)
    assert_problem(response, 422, field=field)
    unchanged = admin_api.get(f"/admin/clients/{created['client_id']}").json()
    assert unchanged["updatedAt"] == created["updatedAt"]


def test_patch_public_client_cannot_gain_client_credentials(admin_api: AdminApi) -> None:
    created = create(admin_api, type="public")
    response = admin_api.patch(
        f"/admin/clients/{created['client_id']}",
        json={"grantTypes": ["authorization_code", "client_credentials"]},
    )
    assert_problem(response, 422, field="grantTypes[1]")


def test_patch_unknown_client_is_404(admin_api: AdminApi) -> None:
    assert_problem(admin_api.patch(UNKNOWN, json={"name": "x"}), 404)


def test_patch_is_guarded(admin_api: AdminApi) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}"
    assert_guarded(admin_api, "PATCH", path, WRITE, json={"name": "x"})


# --- DELETE /admin/clients/{client_id} ----------------------------------------------------


def test_delete_takes_everything_issued_to_the_client(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api)
    client_id = created["client_id"]
    admin_api.put(f"/admin/clients/{client_id}/scopes", json={"scopes": ["openid", "email"]})
    pk = uuid.UUID(str(client_row(stack, client_id)["id"]))  # type: ignore[index]
    person = tf.create_person(stack)
    records.give_consent(stack, client_id, str(person.id), ["openid"])
    records.issue_session_refresh_token(stack, client_id, str(person.id), "sid-1")
    tf.create_code(stack, tf.AppClient(client_id, created["client_secret"], pk), person)
    tables = (
        "client_secrets",
        "client_scopes",
        "consents",
        "refresh_tokens",
        "authorization_codes",
    )
    for table in tables:
        rows = query(stack, f"SELECT 1 FROM {table} WHERE client_pk = $1", pk)  # noqa: S608
        assert rows, table

    response = admin_api.delete(f"/admin/clients/{client_id}")
    assert response.status_code == 204, response.text
    assert response.content == b""
    assert client_row(stack, client_id) is None
    for table in tables:
        assert query(stack, f"SELECT 1 FROM {table} WHERE client_pk = $1", pk) == [], table  # noqa: S608
    assert_problem(admin_api.get(f"/admin/clients/{client_id}"), 404)
    audit_row = admin_api.audit_rows(client_id)[-1]
    assert (audit_row["action"], audit_row["status_code"]) == ("client.delete", 204)


def test_console_client_cannot_be_deleted(admin_api: AdminApi, stack: Stack) -> None:
    assert_problem(admin_api.delete("/admin/clients/console"), 409)
    assert client_row(stack, "console") is not None


def test_delete_unknown_client_is_404(admin_api: AdminApi) -> None:
    assert_problem(admin_api.delete(UNKNOWN), 404)


def test_delete_is_guarded(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}"
    assert_guarded(admin_api, "DELETE", path, WRITE)
    assert client_row(stack, created["client_id"]) is not None


# --- POST /admin/clients/{client_id}/rotate-secret ----------------------------------------


def machine_client(admin_api: AdminApi, stack: Stack) -> dict[str, Any]:
    """A confidential ``client_credentials`` client holding one scope of a fresh API."""
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


# --- PUT /admin/clients/{client_id}/scopes ------------------------------------------------


def test_put_scopes_replaces_the_set(admin_api: AdminApi, stack: Stack) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}/scopes"
    first = admin_api.put(path, json={"scopes": ["openid", "email", "openid"]})
    assert first.status_code == 200, first.text
    assert first.json()["scopes"] == ["email", "openid"]
    second = admin_api.put(path, json={"scopes": ["profile"]})
    assert second.json()["scopes"] == ["profile"]
    stored = query(
        stack,
        "SELECT s.value FROM client_scopes cs JOIN scopes s ON s.id = cs.scope_id "
        "JOIN clients c ON c.id = cs.client_pk WHERE c.client_id = $1",
        created["client_id"],
    )
    assert [r["value"] for r in stored] == ["profile"]
    assert admin_api.put(path, json={"scopes": []}).json()["scopes"] == []
    actions = [r["action"] for r in admin_api.audit_rows(created["client_id"])]
    assert actions.count("client.set_scopes") == 3


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"scopes": ["openid", "no:such:scope"]}, "scopes[1]"),
        ({"scopes": "openid"}, "scopes"),
        ({}, "scopes"),
        ({"scopes": [], "extra": 1}, "extra"),
    ],
)
def test_put_scopes_rejects_bad_input(
    admin_api: AdminApi, stack: Stack, payload: dict[str, Any], field: str
) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}/scopes"
    admin_api.put(path, json={"scopes": ["email"]})
    assert_problem(admin_api.put(path, json=payload), 422, field=field)
    assert admin_api.get(f"/admin/clients/{created['client_id']}").json()["scopes"] == ["email"]


def test_put_scopes_unknown_client_is_404(admin_api: AdminApi) -> None:
    assert_problem(admin_api.put(f"{UNKNOWN}/scopes", json={"scopes": ["openid"]}), 404)


def test_put_scopes_is_guarded(admin_api: AdminApi) -> None:
    created = create(admin_api)
    path = f"/admin/clients/{created['client_id']}/scopes"
    assert_guarded(admin_api, "PUT", path, WRITE, json={"scopes": ["openid"]})
