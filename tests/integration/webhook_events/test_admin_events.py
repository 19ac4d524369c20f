"""Webhook events of the administration API (docs/webhooks.md "Events"), against the
stack's admin service: each write announces exactly its events, in its own transaction;
refused writes announce nothing; no payload carries a password, a secret or an email."""

from __future__ import annotations

import uuid

import pytest

from tests.harness.records import create_browser_session, create_user, query
from tests.integration.admin.contract import AdminApi
from tests.integration.signin_fixtures import create_person
from tests.integration.webhook_events.support import (
    assert_no_secret,
    events_about,
    one,
    types_about,
)

pytestmark = pytest.mark.integration
PASSWORD = "violet anchor drifting seven"
NEW_PASSWORD = "amber kettle whistles nine"


def test_a_persons_life_announces_each_step_once(admin_api: AdminApi) -> None:
    stack = admin_api.stack
    email = f"Events-{uuid.uuid4().hex[:10]}@Example.com"
    body = {"email": email, "password": PASSWORD, "displayName": "E"}
    created = admin_api.post("/admin/users", json=body)
    assert created.status_code == 201, created.text
    person = created.json()["id"]
    actor = admin_api.actor
    assert one(stack, person, "user.created") == {"user_id": person, "actor": actor}

    assert admin_api.patch(f"/admin/users/{person}", json={"displayName": "F"}).status_code == 200
    assert one(stack, person, "user.updated") == {
        "user_id": person,
        "actor": actor,
        "fields": ["display_name"],
    }
    _, session = create_browser_session(stack, person)
    assert admin_api.patch(f"/admin/users/{person}", json={"disabled": True}).status_code == 200
    assert one(stack, person, "user.disabled") == {
        "user_id": person,
        "actor": actor,
        "sessions_ended": 1,
    }
    assert one(stack, person, "session.ended") == {
        "user_id": person,
        "sid": session.sid,
        "reason": "user_disabled",
        "client_ids": [],
    }
    assert admin_api.patch(f"/admin/users/{person}", json={"disabled": False}).status_code == 200
    assert one(stack, person, "user.enabled") == {"user_id": person, "actor": actor}

    key = f"dept_{uuid.uuid4().hex[:8]}"
    made = admin_api.post("/admin/profile-fields", json={"key": key, "label": "Department"})
    assert made.status_code == 201, made.text
    changed = admin_api.patch(f"/admin/users/{person}/profile", json={key: "Research"})
    assert changed.status_code == 200, changed.text
    assert one(stack, person, "user.profile_changed") == {
        "user_id": person,
        "actor": actor,
        "keys": [key],
    }

    reset = admin_api.post(f"/admin/users/{person}/reset-password", json={"password": NEW_PASSWORD})
    assert reset.status_code == 204, reset.text
    assert one(stack, person, "user.password_changed") == {
        "user_id": person,
        "actor": actor,
        "via": "admin",
        "password_set": True,
    }

    assert admin_api.delete(f"/admin/users/{person}").status_code == 204
    assert one(stack, person, "user.deleted") == {"user_id": person, "actor": actor}
    assert types_about(stack, person) == [
        "user.created",
        "user.updated",
        "session.ended",
        "user.disabled",
        "user.enabled",
        "user.profile_changed",
        "user.password_changed",
        "user.deleted",
    ]
    assert_no_secret(stack, person, PASSWORD, NEW_PASSWORD, email, email.lower(), "Research")


def test_one_patch_of_fields_and_the_flag_is_two_events(admin_api: AdminApi) -> None:
    person = create_user(admin_api.stack)
    sent = {"username": f"u-{uuid.uuid4().hex[:8]}", "disabled": True}
    patched = admin_api.patch(f"/admin/users/{person.id}", json=sent)
    assert patched.status_code == 200, patched.text
    assert types_about(admin_api.stack, person.id) == ["user.updated", "user.disabled"]
    assert one(admin_api.stack, person.id, "user.updated")["fields"] == ["username"]


def test_refused_writes_announce_nothing(admin_api: AdminApi) -> None:
    stack = admin_api.stack
    person, other = create_user(stack), create_user(stack)
    taken = admin_api.patch(f"/admin/users/{person.id}", json={"email": other.email})
    assert taken.status_code == 409, taken.text
    key = f"badge_{uuid.uuid4().hex[:8]}"
    made = admin_api.post("/admin/profile-fields", json={"key": key, "label": "B", "unique": True})
    assert made.status_code == 201, made.text
    assert admin_api.patch(f"/admin/users/{other.id}/profile", json={key: "B-1"}).status_code == 200
    clash = admin_api.patch(f"/admin/users/{person.id}/profile", json={key: "B-1"})
    assert clash.status_code == 409, clash.text
    missing = admin_api.delete(f"/admin/users/{uuid.uuid4()}")
    assert missing.status_code == 404
    # each refusal has its audit row, and no event
    refused = query(
        stack,
        "SELECT action FROM audit_events WHERE target = $1 AND status_code >= 400",
        person.id,
    )
    assert len(refused) == 2
    assert events_about(stack, person.id) == []
    assert types_about(stack, other.id) == ["user.profile_changed"]


def test_an_administrator_clearing_credentials_and_sessions(admin_api: AdminApi) -> None:
    stack = admin_api.stack
    person = create_person(stack, totp=True)
    actor = admin_api.actor
    assert admin_api.delete(f"/admin/users/{person.id}/totp").status_code == 204
    assert admin_api.delete(f"/admin/users/{person.id}/totp").status_code == 204  # none left
    assert admin_api.delete(f"/admin/users/{person.id}/face").status_code == 204  # none held
    assert one(stack, person.id, "user.authenticator_removed") == {
        "user_id": person.id,
        "actor": actor,
    }
    _, first = create_browser_session(stack, person.id)
    _, second = create_browser_session(stack, person.id)
    assert admin_api.delete(f"/admin/users/{person.id}/sessions").status_code == 204
    ended = [e["data"] for e in events_about(stack, person.id) if e["type"] == "session.ended"]
    assert sorted(d["sid"] for d in ended) == sorted([first.sid, second.sid])
    assert {d["reason"] for d in ended} == {"admin_revoked"}
    assert types_about(stack, person.id) == [
        "user.authenticator_removed",
        "session.ended",
        "session.ended",
    ]
    assert_no_secret(stack, person.id, person.password, str(person.totp_secret), person.email)


def test_a_clients_life_announces_each_step_once(admin_api: AdminApi) -> None:
    stack = admin_api.stack
    body = {
        "name": "Events app",
        "type": "confidential",
        "redirectUris": ["https://events.example/cb"],
        "grantTypes": ["authorization_code"],
    }
    created = admin_api.post("/admin/clients", json=body)
    assert created.status_code == 201, created.text
    client_id, secret = created.json()["client_id"], created.json()["client_secret"]
    actor = admin_api.actor
    assert one(stack, client_id, "client.created") == {
        "client_id": client_id,
        "actor": actor,
        "client_type": "confidential",
    }
    path = f"/admin/clients/{client_id}"
    assert admin_api.patch(path, json={"name": "Renamed"}).status_code == 200
    assert admin_api.put(f"{path}/scopes", json={"scopes": ["openid"]}).status_code == 200
    updates = [e["data"] for e in events_about(stack, client_id) if e["type"] == "client.updated"]
    assert updates == [
        {"client_id": client_id, "actor": actor, "fields": ["name"]},
        {"client_id": client_id, "actor": actor, "fields": ["scopes"]},
    ]
    rotated = admin_api.post(f"{path}/rotate-secret")
    assert rotated.status_code == 200, rotated.text
    new_secret = rotated.json()["client_secret"]
    rotation = one(stack, client_id, "client.secret_rotated")
    assert rotation == {"client_id": client_id, "actor": actor}
    refused = admin_api.patch(path, json={"redirectUris": ["not a uri"]})
    assert refused.status_code == 422, refused.text
    assert admin_api.delete(path).status_code == 204
    assert one(stack, client_id, "client.deleted") == {"client_id": client_id, "actor": actor}
    assert types_about(stack, client_id) == [
        "client.created",
        "client.updated",
        "client.updated",
        "client.secret_rotated",
        "client.deleted",
    ]
    assert_no_secret(stack, client_id, secret, new_secret)
