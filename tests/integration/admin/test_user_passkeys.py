"""``/admin/users/{user_id}/passkeys`` (issue #26, docs/passkeys.md): an administrator lists a
person's passkeys (as the person sees them) and removes one; the permissions, the recent
sign-in and the rules for another administrator's credentials (admin_service.authority)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import tokens
from tests.harness.api import TWO_FACTOR_SIGN_IN, ApiClient, fresh_address
from tests.harness.passkeys import SoftAuthenticator
from tests.harness.records import (
    TestUser,
    create_browser_session,
    create_user,
    query,
    session_exists,
)
from tests.harness.stack import Stack
from tests.integration.admin.contract import MISSING_ID, AdminApi, assert_guarded, assert_problem
from tests.integration.entity.contract import EntityApi

pytestmark = pytest.mark.integration

READ = "idp:users:read"
WRITE = "idp:users:write"
ONE_FACTOR = {"amr": ["pwd"], "acr": "urn:idp:acr:1fa"}


def with_passkeys(stack: Stack, *names: str, scopes: tuple[str, ...] = ()) -> TestUser:
    """A person who registered ``names`` through the self-service API."""
    person = create_user(stack, scopes=scopes)
    entity = EntityApi(stack, person)
    soft = SoftAuthenticator(origin=stack.issuer, rp_id="127.0.0.1")
    try:
        for name in names:
            options = entity.post("/entity/passkeys/registration-options").json()
            body = {"name": name, "credential": soft.create(options)}
            assert entity.post("/entity/passkeys", json=body).status_code == 201
    finally:
        entity.close()
    return person


def stored(stack: Stack, person: TestUser) -> list[str]:
    rows = query(
        stack,
        "SELECT name FROM passkeys WHERE user_id = $1 ORDER BY created_at",
        uuid.UUID(person.id),
    )
    return [str(r["name"]) for r in rows]


def listed(admin_api: AdminApi, person: TestUser) -> list[dict[str, Any]]:
    answer = admin_api.get(f"/admin/users/{person.id}/passkeys", scopes=[READ])
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


def test_routes_are_guarded(admin_api: AdminApi) -> None:
    person = with_passkeys(admin_api.stack, "Phone")
    assert_guarded(admin_api, "GET", f"/admin/users/{person.id}/passkeys", READ)
    passkey = listed(admin_api, person)[0]["id"]
    path = f"/admin/users/{person.id}/passkeys/{passkey}"
    assert_guarded(admin_api, "DELETE", path, WRITE)
    assert stored(admin_api.stack, person) == ["Phone"]


def test_list_and_remove_a_users_passkey(admin_api: AdminApi, stack: Stack) -> None:
    person = with_passkeys(stack, "Phone", "Security key")
    items = listed(admin_api, person)
    entity = EntityApi(stack, person)
    try:
        own = entity.get("/entity/passkeys").json()["items"]
    finally:
        entity.close()
    assert items == own  # the same PasskeyRead the person sees
    assert [p["name"] for p in items] == ["Phone", "Security key"]
    assert items[0]["signCount"] == 0 and items[0]["lastUsedAt"] is None
    assert "credentialId" not in items[0] and "publicKey" not in items[0]

    path = f"/admin/users/{person.id}/passkeys/{items[0]['id']}"
    removed = admin_api.delete(path, scopes=[WRITE])
    assert removed.status_code == 204, removed.text
    assert stored(stack, person) == ["Security key"]
    assert [p["id"] for p in listed(admin_api, person)] == [items[1]["id"]]
    assert_problem(admin_api.delete(path, scopes=[WRITE]), 404)

    rows = [r for r in admin_api.audit_rows(person.id) if r["actor"] == admin_api.actor]
    assert [(r["action"], r["target_type"], r["status_code"]) for r in rows] == [
        ("user.remove_passkey", "user", 204),
        ("DELETE /admin/users/{user_id}/passkeys/{passkey_id}", None, 404),
    ]
    # the session the person registered them from ended with the removal
    assert json.loads(str(rows[0]["detail"])) == {"passkeyId": items[0]["id"], "sessionsEnded": 1}


def test_unknown_users_and_passkeys_are_404(admin_api: AdminApi, stack: Stack) -> None:
    assert_problem(admin_api.get(f"/admin/users/{MISSING_ID}/passkeys"), 404)
    assert_problem(admin_api.delete(f"/admin/users/{MISSING_ID}/passkeys/{MISSING_ID}"), 404)
    person = with_passkeys(stack, "Phone")
    other = with_passkeys(stack, "Theirs")
    theirs = listed(admin_api, other)[0]["id"]
    for passkey in (MISSING_ID, "not-a-uuid", theirs):
        answer = admin_api.delete(f"/admin/users/{person.id}/passkeys/{passkey}")
        assert_problem(answer, 404)
    assert stored(stack, person) == ["Phone"] and stored(stack, other) == ["Theirs"]
    assert listed(admin_api, create_user(stack)) == []


def test_removing_needs_a_recent_sign_in(admin_api: AdminApi, stack: Stack) -> None:
    person = with_passkeys(stack, "Phone")
    path = f"/admin/users/{person.id}/passkeys/{listed(admin_api, person)[0]['id']}"
    admin_api.claims = {**admin_api.claims, "auth_time": int(time.time()) - 1000}
    refused = admin_api.delete(path)
    assert_problem(refused, 403)
    assert 'error="insufficient_user_authentication"' in refused.headers["www-authenticate"]
    assert stored(stack, person) == ["Phone"]


def call_as(stack: Stack, scopes: tuple[str, ...], **claims: Any) -> ApiClient:
    """A new person holding ``scopes``, signed in just now as ``claims`` say."""
    subject = create_user(stack, scopes=scopes).id
    api = ApiClient(stack, "admin", subject, scopes, fresh_sign_in=True)
    api.claims = claims
    return api


def test_another_administrators_passkey_needs_two_factors_and_a_stronger_caller(
    stack: Stack,
) -> None:
    victim = with_passkeys(stack, "Admin key", scopes=tuple(ADMIN_SCOPES))
    reader = call_as(stack, (READ,), amr=["pwd"])
    try:
        passkey = reader.get(f"/admin/users/{victim.id}/passkeys").json()["items"][0]["id"]
    finally:
        reader.close()
    path = f"/admin/users/{victim.id}/passkeys/{passkey}"

    helpdesk = call_as(stack, (WRITE,), **TWO_FACTOR_SIGN_IN)
    one_factor = call_as(stack, tuple(ADMIN_SCOPES), **ONE_FACTOR)
    try:
        weaker = helpdesk.delete(path)
        assert_problem(weaker, 403)
        assert weaker.json()["code"] == "admin.scope_not_held"
        single = one_factor.delete(path)
        assert_problem(single, 403)
        assert single.json()["code"] == "auth.insufficient_user_authentication"
        assert "urn:idp:acr:2fa" in single.headers["www-authenticate"]
    finally:
        helpdesk.close()
        one_factor.close()
    assert stored(stack, victim) == ["Admin key"]
    denials = query(
        stack,
        "SELECT actor FROM audit_events WHERE action = 'access.denied' AND target = $1",
        victim.id,
    )
    assert sorted(str(r["actor"]) for r in denials) == sorted([helpdesk.actor, one_factor.actor])

    full = AdminApi(stack)  # every administration scope, two factors just now
    try:
        assert full.delete(path).status_code == 204
    finally:
        full.close()
    assert stored(stack, victim) == []


def test_an_administrator_removing_their_own_passkey_keeps_the_session_they_did_it_from(
    stack: Stack,
) -> None:
    """As in the self-service screens: their other sessions end (an attacker's among them),
    the one they act from stays and its token keeps working."""
    me = with_passkeys(stack, "Phone", "Security key", scopes=ADMIN_SCOPES)
    _, here = create_browser_session(stack, me.id)
    _, elsewhere = create_browser_session(stack, me.id)
    token = tokens.mint(
        stack.key_dir,
        issuer=stack.issuer,
        scopes=ADMIN_SCOPES,
        subject=me.id,
        auth_time=int(time.time()),
        sid=here.sid,
        **TWO_FACTOR_SIGN_IN,
    )
    bearer = {"Authorization": f"Bearer {token}", "X-Forwarded-For": fresh_address()}
    admin = stack.service_url("admin")
    own = httpx.get(f"{admin}/admin/users/{me.id}/passkeys", headers=bearer).json()["items"]
    removed = httpx.delete(f"{admin}/admin/users/{me.id}/passkeys/{own[0]['id']}", headers=bearer)
    assert removed.status_code == 204, removed.text
    assert stored(stack, me) == ["Security key"]
    assert session_exists(stack, here.sid) and not session_exists(stack, elsewhere.sid)
    assert httpx.get(f"{admin}/admin/users/{me.id}", headers=bearer).status_code == 200
