"""``/admin/users`` (spec part 4 "Admin: users", DESIGN.md "Wire contracts";
``DELETE /admin/users/{user_id}/sessions`` from DESIGN.md "The provider's own API").

Each route: success, 401 and 403 (``assert_guarded``), 404 for a missing or malformed id,
422 naming the field; what is stored (and what is not) is read back from the database.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from idp_common.crypto.passwords import verify_password
from idp_common.protocol.constants import (
    SCOPE_IDP_CLIENTS_READ,
    SCOPE_IDP_USERS_READ,
    SCOPE_IDP_USERS_WRITE,
    SELF_SERVICE_SCOPES,
)
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.repos.users import effective_scopes
from tests.harness import infra
from tests.harness.records import (
    create_browser_session,
    create_client,
    create_user,
    give_consent,
    issue_session_refresh_token,
    query,
    session_exists,
)
from tests.harness.stack import Stack
from tests.integration.admin.contract import (
    MISSING_ID,
    AdminApi,
    assert_guarded,
    assert_problem,
)

pytestmark = pytest.mark.integration

READ, WRITE = SCOPE_IDP_USERS_READ, SCOPE_IDP_USERS_WRITE
GOOD_PASSWORD = "violet anchor drifting seven"
USER_KEYS = {
    "id",
    "email",
    "username",
    "displayName",
    "emailVerified",
    "disabled",
    "createdAt",
    "updatedAt",
}


def tag() -> str:
    return uuid.uuid4().hex[:10]


def new_user(api: AdminApi, **extra: Any) -> dict[str, Any]:
    t = tag()
    body = {
        "email": f"User-{t}@Example.com",
        "username": f"user-{t}",
        "displayName": "A Person",
        "password": GOOD_PASSWORD,
        **extra,
    }
    response = api.post("/admin/users", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def insert_role(stack: Stack, scopes: list[str]) -> tuple[str, str]:
    name = f"role-{tag()}"
    role_id = str(query(stack, "INSERT INTO roles (name) VALUES ($1) RETURNING id", name)[0]["id"])
    query(
        stack,
        "INSERT INTO role_scopes (role_id, scope_id) "
        "SELECT $1::uuid, id FROM scopes WHERE value = ANY($2::text[])",
        role_id,
        scopes,
    )
    return role_id, name


def insert_group(stack: Stack, user_id: str, role_id: str) -> tuple[str, str]:
    name = f"group-{tag()}"
    group_id = str(
        query(stack, "INSERT INTO groups (name) VALUES ($1) RETURNING id", name)[0]["id"]
    )
    query(stack, "INSERT INTO group_members VALUES ($1::uuid, $2::uuid)", group_id, user_id)
    query(stack, "INSERT INTO group_roles VALUES ($1::uuid, $2::uuid)", group_id, role_id)
    return group_id, name


def count(stack: Stack, table: str, user_id: str) -> int:
    rows = query(stack, f"SELECT count(*) AS n FROM {table} WHERE user_id = $1::uuid", user_id)  # noqa: S608
    return int(str(rows[0]["n"]))


def outbox_rows(stack: Stack, user_id: str) -> list[dict[str, Any]]:
    rows = query(
        stack,
        "SELECT subject, payload::text AS payload FROM event_outbox "
        "WHERE payload->>'user_id' = $1 ORDER BY id",
        user_id,
    )
    return [{"subject": r["subject"], **json.loads(str(r["payload"]))} for r in rows]


def detail(row: dict[str, object]) -> dict[str, Any]:
    """An audit row's ``detail`` (asyncpg hands jsonb over as text)."""
    value = row["detail"]
    parsed: dict[str, Any] = json.loads(value) if isinstance(value, str) else value  # type: ignore[assignment]
    return parsed


def password_hash(stack: Stack, user_id: str) -> str | None:
    rows = query(stack, "SELECT hash FROM password_credentials WHERE user_id = $1::uuid", user_id)
    return str(rows[0]["hash"]) if rows else None


# --- POST /admin/users --------------------------------------------------------------------


def test_create_user_answers_201_stores_an_argon2id_hash_and_audits(
    admin_api: AdminApi, stack: Stack
) -> None:
    t = tag()
    body = {
        "email": f"New-{t}@Example.com",
        "username": f"new-{t}",
        "displayName": "New Person",
        "password": GOOD_PASSWORD,
    }
    response = admin_api.post("/admin/users", json=body)
    assert response.status_code == 201, response.text
    user = response.json()
    assert set(user) == USER_KEYS
    assert user["email"] == body["email"]  # the spelling typed is kept
    assert user["username"] == body["username"]
    assert user["displayName"] == "New Person"
    assert user["emailVerified"] is False and user["disabled"] is False
    assert GOOD_PASSWORD not in response.text
    stored = password_hash(stack, user["id"])
    assert stored is not None and stored.startswith("$argon2id$")
    assert verify_password(stored, GOOD_PASSWORD)
    rows = admin_api.audit_rows(user["id"])
    assert [(r["action"], r["status_code"], r["actor"]) for r in rows] == [
        ("user.create", 201, admin_api.actor)
    ]
    assert GOOD_PASSWORD not in str(rows)


def test_create_user_guard(admin_api: AdminApi) -> None:
    body = {"email": f"g-{tag()}@example.com", "password": GOOD_PASSWORD}
    assert_guarded(admin_api, "POST", "/admin/users", WRITE, json=body)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"email": "not-an-address", "password": GOOD_PASSWORD}, "email"),
        ({"email": "a@nodot", "password": GOOD_PASSWORD}, "email"),
        ({"email": "a b@example.com", "password": GOOD_PASSWORD}, "email"),
        ({"password": GOOD_PASSWORD}, "email"),
        ({"email": "{t}@example.com"}, "password"),
        ({"email": "{t}@example.com", "password": "short"}, "password"),
        ({"email": "{t}@example.com", "password": "password123!"}, "password"),
        ({"email": "{t}@example.com", "password": GOOD_PASSWORD, "username": ""}, "username"),
        ({"email": "{t}@example.com", "password": GOOD_PASSWORD, "username": "a b"}, "username"),
        ({"email": "{t}@example.com", "password": GOOD_PASSWORD, "role": "x"}, "role"),
        ({"email": "{t}@example.com", "password": GOOD_PASSWORD, "displayName": 3}, "displayName"),
    ],
)
def test_create_user_refuses_bad_input_naming_the_field(
    admin_api: AdminApi, stack: Stack, body: dict[str, Any], field: str
) -> None:
    t = tag()
    body = {k: v.replace("{t}", t) if isinstance(v, str) else v for k, v in body.items()}
    response = admin_api.post("/admin/users", json=body)
    assert_problem(response, 422, field=field)
    if "email" in body:
        assert not query(stack, "SELECT 1 FROM users WHERE email = $1", body["email"])


def test_create_user_refuses_a_password_containing_the_email(admin_api: AdminApi) -> None:
    t = tag()
    response = admin_api.post(
        "/admin/users",
        json={"email": f"zebra{t}@example.com", "password": f"my zebra{t} secret"},
    )
    assert_problem(response, 422, field="password")
    assert "email" in response.json()["errors"][0]["message"]


def test_create_user_refuses_a_taken_email_or_username_case_insensitively(
    admin_api: AdminApi, stack: Stack
) -> None:
    user = new_user(admin_api)
    again = admin_api.post(
        "/admin/users", json={"email": user["email"].upper(), "password": GOOD_PASSWORD}
    )
    assert_problem(again, 409, field="email")
    assert "email" in again.json()["detail"]
    same_name = admin_api.post(
        "/admin/users",
        json={
            "email": f"other-{tag()}@example.com",
            "username": user["username"].upper(),
            "password": GOOD_PASSWORD,
        },
    )
    assert_problem(same_name, 409, field="username")
    assert "username" in same_name.json()["detail"]
    rows = query(stack, "SELECT 1 FROM users WHERE lower(email) = lower($1)", user["email"])
    assert len(rows) == 1


# --- GET /admin/users ---------------------------------------------------------------------


def test_list_users_filters_by_case_insensitive_prefix_and_pages(admin_api: AdminApi) -> None:
    t = tag()
    emails = [f"pfx{t}-{i}@example.com" for i in range(3)]
    for i, email in enumerate(emails):
        body = {"email": email.upper() if i == 1 else email, "password": GOOD_PASSWORD}
        assert admin_api.post("/admin/users", json=body).status_code == 201
    response = admin_api.get("/admin/users", params={"email": f"PFX{t}"}, scopes=[READ])
    assert response.status_code == 200, response.text
    page = response.json()
    assert [u["email"].lower() for u in page["items"]] == emails
    assert page["nextCursor"] is None
    assert set(page["items"][0]) == USER_KEYS

    seen, cursor = [], None
    while True:
        params = {"email": f"pfx{t}", "limit": 1, **({"cursor": cursor} if cursor else {})}
        body = admin_api.get("/admin/users", params=params).json()
        assert len(body["items"]) <= 1
        seen += [u["email"].lower() for u in body["items"]]
        cursor = body["nextCursor"]
        if cursor is None:
            break
    assert seen == emails


def test_list_users_treats_like_wildcards_in_the_prefix_literally(admin_api: AdminApi) -> None:
    t = tag()
    literal = new_user(admin_api, email=f"w{t}%_x@example.com", username=f"u{t}_%z")
    new_user(admin_api, email=f"w{t}abx@example.com", username=f"u{t}abz")
    by_email = admin_api.get("/admin/users", params={"email": f"w{t}%_"}).json()
    assert [u["id"] for u in by_email["items"]] == [literal["id"]]
    by_name = admin_api.get("/admin/users", params={"username": f"U{t}_%"}).json()
    assert [u["id"] for u in by_name["items"]] == [literal["id"]]
    assert len(admin_api.get("/admin/users", params={"email": f"w{t}"}).json()["items"]) == 2


def test_list_users_guard_and_bad_paging(admin_api: AdminApi) -> None:
    assert_guarded(admin_api, "GET", "/admin/users", READ)
    assert_problem(admin_api.get("/admin/users", params={"limit": 0}), 422)
    assert_problem(admin_api.get("/admin/users", params={"limit": 201}), 422)
    assert_problem(admin_api.get("/admin/users", params={"cursor": "bm9wZQ"}), 422, field="cursor")


# --- GET / PATCH / DELETE /admin/users/{user_id} ------------------------------------------


def test_get_user(admin_api: AdminApi) -> None:
    user = new_user(admin_api)
    response = admin_api.get(f"/admin/users/{user['id']}", scopes=[READ])
    assert response.status_code == 200
    assert response.json() == user
    assert_guarded(admin_api, "GET", f"/admin/users/{user['id']}", READ)
    assert_problem(admin_api.get(f"/admin/users/{MISSING_ID}"), 404)
    assert_problem(admin_api.get("/admin/users/not-a-uuid"), 404)


def test_patch_user_changes_only_what_is_sent(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    path = f"/admin/users/{user['id']}"
    verified = admin_api.patch(path, json={"emailVerified": True, "displayName": "Renamed"})
    assert verified.status_code == 200, verified.text
    assert verified.json()["emailVerified"] is True
    assert verified.json()["displayName"] == "Renamed"
    assert verified.json()["email"] == user["email"]

    cleared = admin_api.patch(path, json={"username": None}, scopes=[WRITE]).json()
    assert cleared["username"] is None and cleared["displayName"] == "Renamed"

    new_email = f"moved-{tag()}@example.com"
    moved = admin_api.patch(path, json={"email": new_email}).json()
    assert moved["email"] == new_email
    assert moved["emailVerified"] is False  # a new address is not verified yet
    stored = query(stack, "SELECT email, username FROM users WHERE id = $1::uuid", user["id"])
    assert stored == [{"email": new_email, "username": None}]
    actions = [r["action"] for r in admin_api.audit_rows(user["id"])]
    assert actions == ["user.create", "user.update", "user.update", "user.update"]
    assert detail(admin_api.audit_rows(user["id"])[1])["fields"] == [
        "display_name",
        "email_verified",
    ]


def test_patch_user_refusals(admin_api: AdminApi) -> None:
    user, other = new_user(admin_api), new_user(admin_api)
    path = f"/admin/users/{user['id']}"
    assert_guarded(admin_api, "PATCH", path, WRITE, json={"displayName": "x"})
    assert_problem(admin_api.patch(f"/admin/users/{MISSING_ID}", json={"displayName": "x"}), 404)
    assert_problem(admin_api.patch("/admin/users/nope", json={"displayName": "x"}), 404)
    assert_problem(admin_api.patch(path, json={"email": None}), 422, field="email")
    assert_problem(admin_api.patch(path, json={"email": "nope"}), 422, field="email")
    assert_problem(admin_api.patch(path, json={"disabled": "yes"}), 422, field="disabled")
    assert_problem(admin_api.patch(path, json={"password": "x"}), 422, field="password")
    taken = admin_api.patch(path, json={"email": other["email"].lower()})
    assert_problem(taken, 409)
    assert "email" in taken.json()["detail"]
    assert_problem(admin_api.patch(path, json={"username": other["username"].upper()}), 409)
    # The person's own address in another case is not a conflict.
    same = admin_api.patch(path, json={"email": user["email"].lower()})
    assert same.status_code == 200, same.text


def test_disabling_a_user_ends_their_sessions(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    _, session = create_browser_session(stack, user["id"])
    response = admin_api.patch(f"/admin/users/{user['id']}", json={"disabled": True})
    assert response.status_code == 200 and response.json()["disabled"] is True
    assert not session_exists(stack, session.sid)
    assert [e["reason"] for e in outbox_rows(stack, user["id"])] == ["user_disabled"]


def test_delete_user_ends_sessions_and_leaves_nothing(admin_api: AdminApi, stack: Stack) -> None:
    client = create_client(stack)
    person = create_user(stack, scopes=(SCOPE_IDP_CLIENTS_READ,))
    role_id, _ = insert_role(stack, [SCOPE_IDP_USERS_READ])
    insert_group(stack, person.id, role_id)
    query(stack, "INSERT INTO user_roles VALUES ($1::uuid, $2::uuid)", person.id, role_id)
    give_consent(stack, client.client_id, person.id, ["openid"])
    sessions = [create_browser_session(stack, person.id)[1] for _ in range(2)]
    issue_session_refresh_token(stack, client.client_id, person.id, sessions[0].sid)
    query(
        stack,
        "INSERT INTO totp_credentials (user_id, secret_encrypted) VALUES ($1::uuid, 'x')",
        person.id,
    )

    response = admin_api.delete(f"/admin/users/{person.id}", scopes=[WRITE])
    assert response.status_code == 204, response.text
    assert not query(stack, "SELECT 1 FROM users WHERE id = $1::uuid", person.id)
    for table in (
        "password_credentials",
        "totp_credentials",
        "user_scopes",
        "user_roles",
        "group_members",
        "consents",
        "refresh_tokens",
        "authorization_codes",
        "profile_values",
    ):
        assert count(stack, table, person.id) == 0, table
    assert not any(session_exists(stack, s.sid) for s in sessions)
    events = outbox_rows(stack, person.id)
    assert sorted(e["sid"] for e in events) == sorted(s.sid for s in sessions)
    assert {e["reason"] for e in events} == {"user_deleted"}
    assert {e["subject"] for e in events} == {f"{stack.env['SVC_NATS_PREFIX']}.session.ended"}
    assert query(stack, "SELECT 1 FROM roles WHERE id = $1::uuid", role_id)  # the role stays
    audit = admin_api.audit_rows(person.id)
    assert [(r["action"], r["status_code"]) for r in audit] == [("user.delete", 204)]


def test_delete_user_guard_and_missing(admin_api: AdminApi) -> None:
    user = new_user(admin_api)
    assert_guarded(admin_api, "DELETE", f"/admin/users/{user['id']}", WRITE)
    assert_problem(admin_api.delete(f"/admin/users/{MISSING_ID}"), 404)
    assert_problem(admin_api.delete("/admin/users/12"), 404)
    assert admin_api.get(f"/admin/users/{user['id']}").status_code == 200


# --- PUT roles / scopes, effective scopes -------------------------------------------------


def test_put_roles_replaces_them(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    first, first_name = insert_role(stack, [])
    second, second_name = insert_role(stack, [])
    path = f"/admin/users/{user['id']}/roles"
    response = admin_api.put(path, json={"roles": [first, second, first]}, scopes=[WRITE])
    assert response.status_code == 200, response.text
    assert response.json() == {
        "roles": sorted(
            [{"id": first, "name": first_name}, {"id": second, "name": second_name}],
            key=lambda r: r["name"],
        )
    }
    assert admin_api.put(path, json={"roles": [second]}).status_code == 200
    rows = query(
        stack, "SELECT role_id::text AS r FROM user_roles WHERE user_id = $1::uuid", user["id"]
    )
    assert rows == [{"r": second}]
    audit = admin_api.audit_rows(user["id"])
    assert audit[-1]["action"] == "user.set_roles"

    bad = admin_api.put(path, json={"roles": [second, MISSING_ID, "junk"]})
    assert_problem(bad, 422, field="roles[1]")
    assert_problem(bad, 422, field="roles[2]")
    assert_problem(admin_api.put(path, json={"roles": "x"}), 422, field="roles")
    assert_problem(admin_api.put(path, json={}), 422, field="roles")
    assert count(stack, "user_roles", user["id"]) == 1  # unchanged by the refusals
    assert_guarded(admin_api, "PUT", path, WRITE, json={"roles": []})
    assert_problem(admin_api.put(f"/admin/users/{MISSING_ID}/roles", json={"roles": []}), 404)
    assert admin_api.put(path, json={"roles": []}).json() == {"roles": []}
    assert count(stack, "user_roles", user["id"]) == 0


def test_put_scopes_replaces_direct_grants(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    path = f"/admin/users/{user['id']}/scopes"
    response = admin_api.put(path, json={"scopes": [WRITE, READ]}, scopes=[WRITE])
    assert response.status_code == 200, response.text
    assert response.json() == {"scopes": sorted([READ, WRITE])}
    assert admin_api.put(path, json={"scopes": [READ]}).json() == {"scopes": [READ]}
    rows = query(
        stack,
        "SELECT s.value FROM user_scopes u JOIN scopes s ON s.id = u.scope_id "
        "WHERE u.user_id = $1::uuid",
        user["id"],
    )
    assert rows == [{"value": READ}]
    assert_problem(
        admin_api.put(path, json={"scopes": [READ, "idp:nope:x"]}), 422, field="scopes[1]"
    )
    assert_problem(admin_api.put(path, json={"scopes": [READ], "x": 1}), 422, field="x")
    assert count(stack, "user_scopes", user["id"]) == 1
    assert_guarded(admin_api, "PUT", path, WRITE, json={"scopes": []})
    assert_problem(admin_api.put(f"/admin/users/{MISSING_ID}/scopes", json={"scopes": []}), 404)
    actions = [(r["action"], r["status_code"]) for r in admin_api.audit_rows(user["id"])]
    assert actions.count(("user.set_scopes", 200)) == 2
    assert ("PUT /admin/users/{user_id}/scopes", 422) in actions  # refusals are audited too


def test_get_roles_and_scopes_read_the_direct_grants(admin_api: AdminApi, stack: Stack) -> None:
    """What the PUTs replace can be read back, a role without scopes included (the
    console's user screen starts from it)."""
    user = new_user(admin_api)
    empty_role, empty_name = insert_role(stack, [])
    roles_path, scopes_path = (f"/admin/users/{user['id']}/{part}" for part in ("roles", "scopes"))
    assert admin_api.get(roles_path, scopes=[READ]).json() == {"roles": []}
    assert admin_api.get(scopes_path, scopes=[READ]).json() == {"scopes": []}
    admin_api.put(roles_path, json={"roles": [empty_role]})
    admin_api.put(scopes_path, json={"scopes": [WRITE, READ]})
    assert admin_api.get(roles_path).json() == {"roles": [{"id": empty_role, "name": empty_name}]}
    assert admin_api.get(scopes_path).json() == {"scopes": sorted([READ, WRITE])}
    assert_guarded(admin_api, "GET", roles_path, READ)
    assert_guarded(admin_api, "GET", scopes_path, READ)
    assert_problem(admin_api.get(f"/admin/users/{MISSING_ID}/roles"), 404)
    assert_problem(admin_api.get("/admin/users/12/scopes"), 404)


def repo_effective_scopes(stack: Stack, user_id: str) -> set[str]:
    async def run() -> set[str]:
        engine = create_engine(stack.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return await effective_scopes(session, uuid.UUID(user_id))
        finally:
            await engine.dispose()

    return infra.run(run())


def test_effective_scopes_explain_every_source(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    role_id, role_name = insert_role(stack, [SCOPE_IDP_CLIENTS_READ, READ])
    group_id, group_name = insert_group(stack, user["id"], role_id)
    admin_api.put(f"/admin/users/{user['id']}/scopes", json={"scopes": [READ]})
    own_role, own_role_name = insert_role(stack, [READ])
    admin_api.put(f"/admin/users/{user['id']}/roles", json={"roles": [own_role]})

    path = f"/admin/users/{user['id']}/effective-scopes"
    response = admin_api.get(path, scopes=[READ])
    assert response.status_code == 200, response.text
    items = {item["scope"]: item["sources"] for item in response.json()["items"]}
    via_group = {
        "kind": "group",
        "groupId": group_id,
        "groupName": group_name,
        "roleId": role_id,
        "roleName": role_name,
    }
    assert items[SCOPE_IDP_CLIENTS_READ] == [via_group]
    assert items[READ] == [
        {"kind": "direct"},
        {"kind": "role", "roleId": own_role, "roleName": own_role_name},
        via_group,
    ]
    for value in SELF_SERVICE_SCOPES:
        assert items[value] == [{"kind": "default"}]
    assert set(items) == {SCOPE_IDP_CLIENTS_READ, READ, *SELF_SERVICE_SCOPES}
    assert [i["scope"] for i in response.json()["items"]] == sorted(items)
    # Token issuance sees the same set.
    assert repo_effective_scopes(stack, user["id"]) == set(items)

    assert_guarded(admin_api, "GET", path, READ)
    assert_problem(admin_api.get(f"/admin/users/{MISSING_ID}/effective-scopes"), 404)
    assert_problem(admin_api.get("/admin/users/x/effective-scopes"), 404)


def test_effective_scopes_of_a_user_without_grants(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    items = admin_api.get(f"/admin/users/{user['id']}/effective-scopes").json()["items"]
    assert [i["scope"] for i in items] == sorted(SELF_SERVICE_SCOPES)
    assert repo_effective_scopes(stack, user["id"]) == set(SELF_SERVICE_SCOPES)


# --- reset-password, totp, sessions -------------------------------------------------------


def test_reset_password_sets_it_and_ends_everything(admin_api: AdminApi, stack: Stack) -> None:
    client = create_client(stack)
    person = create_user(stack)
    _, session = create_browser_session(stack, person.id)
    issue_session_refresh_token(stack, client.client_id, person.id, session.sid)
    query(
        stack,
        "INSERT INTO refresh_tokens (token_digest, family_id, client_pk, user_id, scope, "
        "expires_at) SELECT $1, gen_random_uuid(), id, $2::uuid, 'offline_access', "
        "now() + interval '1 day' FROM clients WHERE client_id = $3",
        uuid.uuid4().bytes,
        person.id,
        client.client_id,
    )
    new_password = "quiet lantern over hills"
    path = f"/admin/users/{person.id}/reset-password"
    response = admin_api.post(path, json={"password": new_password}, scopes=[WRITE])
    assert response.status_code == 204, response.text
    stored = password_hash(stack, person.id)
    assert stored is not None and stored.startswith("$argon2id$")
    assert verify_password(stored, new_password)
    assert not session_exists(stack, session.sid)
    live = query(
        stack,
        "SELECT 1 FROM refresh_tokens WHERE user_id = $1::uuid AND revoked_at IS NULL",
        person.id,
    )
    assert live == []
    assert [e["reason"] for e in outbox_rows(stack, person.id)] == ["password_reset"]
    audit = admin_api.audit_rows(person.id)
    assert [(r["action"], r["status_code"]) for r in audit] == [("user.reset_password", 204)]
    assert new_password not in str(audit)


def test_reset_password_without_a_body_removes_the_password(
    admin_api: AdminApi, stack: Stack
) -> None:
    person = create_user(stack)
    _, session = create_browser_session(stack, person.id)
    response = admin_api.post(f"/admin/users/{person.id}/reset-password")
    assert response.status_code == 204, response.text
    assert password_hash(stack, person.id) is None
    assert not session_exists(stack, session.sid)


def test_reset_password_refusals(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    before = password_hash(stack, user["id"])
    path = f"/admin/users/{user['id']}/reset-password"
    body = {"password": "another fine passphrase"}
    assert_guarded(admin_api, "POST", path, WRITE, json=body)
    assert_problem(admin_api.post(path, json={"password": "12345678"}), 422, field="password")
    assert_problem(admin_api.post(path, json={"password": 12}), 422, field="password")
    assert_problem(admin_api.post(path, json={"pw": "x"}), 422, field="pw")
    assert_problem(admin_api.post(f"/admin/users/{MISSING_ID}/reset-password", json=body), 404)
    assert_problem(admin_api.post("/admin/users/zz/reset-password", json=body), 404)
    assert password_hash(stack, user["id"]) == before


def test_clear_totp(admin_api: AdminApi, stack: Stack) -> None:
    user = new_user(admin_api)
    query(
        stack,
        "INSERT INTO totp_credentials (user_id, secret_encrypted, confirmed_at) "
        "VALUES ($1::uuid, 'secret', now())",
        user["id"],
    )
    query(
        stack,
        "INSERT INTO totp_recovery_codes (user_id, code_digest) VALUES ($1::uuid, 'a'), "
        "($1::uuid, 'b')",
        user["id"],
    )
    path = f"/admin/users/{user['id']}/totp"
    assert admin_api.delete(path, scopes=[WRITE]).status_code == 204
    assert count(stack, "totp_credentials", user["id"]) == 0
    assert count(stack, "totp_recovery_codes", user["id"]) == 0
    assert admin_api.delete(path).status_code == 204  # idempotent
    audit = [r for r in admin_api.audit_rows(user["id"]) if r["action"] == "user.clear_totp"]
    assert [detail(r)["hadAuthenticator"] for r in audit] == [True, False]
    assert_guarded(admin_api, "DELETE", path, WRITE)
    assert_problem(admin_api.delete(f"/admin/users/{MISSING_ID}/totp"), 404)
    assert_problem(admin_api.delete("/admin/users/bad/totp"), 404)


def test_end_sessions_fans_out_like_logout(admin_api: AdminApi, stack: Stack) -> None:
    client = create_client(stack)
    person = create_user(stack)
    other = create_user(stack)
    sessions = [create_browser_session(stack, person.id)[1] for _ in range(2)]
    _, bystander = create_browser_session(stack, other.id)
    for s in sessions:
        issue_session_refresh_token(stack, client.client_id, person.id, s.sid)

    path = f"/admin/users/{person.id}/sessions"
    response = admin_api.delete(path, scopes=[WRITE])
    assert response.status_code == 204, response.text
    assert not any(session_exists(stack, s.sid) for s in sessions)
    assert session_exists(stack, bystander.sid)
    tokens = query(
        stack, "SELECT revoked_at FROM refresh_tokens WHERE user_id = $1::uuid", person.id
    )
    assert len(tokens) == 2 and all(t["revoked_at"] is not None for t in tokens)
    events = outbox_rows(stack, person.id)
    assert len(events) == 2
    assert sorted(e["sid"] for e in events) == sorted(s.sid for s in sessions)
    assert {e["reason"] for e in events} == {"admin_revoked"}
    audit = admin_api.audit_rows(person.id)
    assert [(r["action"], r["status_code"]) for r in audit] == [("user.end_sessions", 204)]
    assert detail(audit[0])["sessionsEnded"] == 2

    assert admin_api.delete(path).status_code == 204  # nothing left to end
    assert len(outbox_rows(stack, person.id)) == 2
    assert_guarded(admin_api, "DELETE", path, WRITE)
    assert_problem(admin_api.delete(f"/admin/users/{MISSING_ID}/sessions"), 404)
    assert_problem(admin_api.delete("/admin/users/x/sessions"), 404)
