"""What an administrator does to a user's sign-in: reset the password, clear the TOTP,
end the sessions."""

from __future__ import annotations

import uuid

import pytest

from idp_common.crypto.passwords import verify_password
from tests.harness.records import (
    create_browser_session,
    create_client,
    create_user,
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
    new_user,
    outbox_rows,
    password_hash,
)

pytestmark = pytest.mark.integration


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
    changes = [r for r in audit if not str(r["action"]).startswith("notice.")]
    assert [(r["action"], r["status_code"]) for r in changes] == [("user.reset_password", 204)]
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
