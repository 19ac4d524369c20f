"""``PATCH`` and ``DELETE /admin/users/{user_id}``: partial updates, disabling, and what a
deletion ends and leaves."""

from __future__ import annotations

import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_CLIENTS_READ,
    SCOPE_IDP_USERS_READ,
)
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
from tests.integration.admin.test_users.support import (
    WRITE,
    count,
    detail,
    insert_group,
    insert_role,
    new_user,
    outbox_rows,
    tag,
)

pytestmark = pytest.mark.integration


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
