"""The webhook events' pure parts (docs/webhooks.md "Events"): the catalogue, the
subject, the payload, and the map from an audit row to the events it announces."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from idp_common.events import webhook_events as we
from idp_common.storage.repos.audit import AuditEntry

PERSON = "6f1c1a8e-7b7e-4a43-9d55-0d7e2b3c4a51"
ADMIN = "0b9f4d1e-1a2b-4c3d-8e9f-112233445566"


def row(action: str, status: int = 200, **kw: Any) -> AuditEntry:
    return AuditEntry(action=action, status_code=status, **kw)


def only(entry: AuditEntry) -> tuple[str, dict[str, Any]]:
    events = we.events_of_audit(entry)
    assert len(events) == 1, events
    return events[0]


CONTRACT_TYPES = (
    "user.created user.updated user.disabled user.enabled user.deleted "
    "user.profile_changed user.password_changed user.authenticator_enrolled "
    "user.authenticator_removed user.passkey_enrolled user.passkey_removed "
    "user.face_enrolled user.face_removed signin.succeeded signin.failed "
    "signin.throttled session.ended consent.granted consent.withdrawn client.created "
    "client.updated client.deleted client.secret_rotated"
)


def test_the_catalogue_is_the_contracts_list() -> None:
    assert " ".join(we.WEBHOOK_EVENT_TYPES) == CONTRACT_TYPES


def test_subject_and_filter() -> None:
    assert we.webhook_subject("idp", "user.created") == "idp.webhook.user.created"
    assert we.WEBHOOK_SUBJECTS_FILTER.format(prefix="t1") == "t1.webhook.>"


def test_payload_is_standard_webhooks_shaped() -> None:
    at = datetime(2026, 11, 28, 2, 23, 45, 123456, tzinfo=timezone(timedelta(hours=1)))
    payload = we.webhook_payload("user.created", {"user_id": PERSON}, at=at)
    assert re.fullmatch(r"evt_[0-9a-f]{32}", payload["id"])
    assert payload["type"] == "user.created"
    assert payload["timestamp"] == "2026-11-28T01:23:45.123456Z"  # UTC, microseconds, Z
    assert payload["data"] == {"user_id": PERSON}
    again = we.webhook_payload("user.created", {})
    assert again["id"] != payload["id"]
    assert datetime.strptime(again["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ")


def test_payload_refuses_a_type_outside_the_catalogue() -> None:
    with pytest.raises(ValueError, match=r"user\.exploded"):
        we.webhook_payload("user.exploded", {})


def test_outbox_events_puts_the_prefix_in_the_subject() -> None:
    staged = we.outbox_events("run7")(row("client.delete", 204, actor=ADMIN, target="app-1"))
    assert [s.subject for s in staged] == ["run7.webhook.client.deleted"]
    assert staged[0].payload["type"] == "client.deleted"
    assert staged[0].payload["data"] == {"client_id": "app-1", "actor": ADMIN}


# --- every type but session.ended (written by usecases.session_end) from its rows --------

CASES: list[tuple[AuditEntry, str, dict[str, Any]]] = [
    (
        row("user.create", 201, actor=ADMIN, target=PERSON),
        "user.created",
        {"user_id": PERSON, "actor": ADMIN},
    ),
    (
        row(
            "user.created",
            201,
            actor="operator:cli",
            target=PERSON,
            detail={"via": "create-admin", "role": "admin"},
        ),
        "user.created",
        {"user_id": PERSON, "actor": "operator:cli", "via": "create-admin"},
    ),
    (
        row("user.update", actor=ADMIN, target=PERSON, detail={"fields": ["display_name"]}),
        "user.updated",
        {"user_id": PERSON, "actor": ADMIN, "fields": ["display_name"]},
    ),
    (
        row("user.set_roles", actor=ADMIN, target=PERSON, detail={"roles": ["r1"]}),
        "user.updated",
        {"user_id": PERSON, "actor": ADMIN, "fields": ["roles"]},
    ),
    (
        row("user.set_scopes", actor=ADMIN, target=PERSON, detail={"scopes": ["a"]}),
        "user.updated",
        {"user_id": PERSON, "actor": ADMIN, "fields": ["scopes"]},
    ),
    (
        row("credentials.email", actor=PERSON, target=PERSON, detail={"otherMailbox": False}),
        "user.updated",
        {"user_id": PERSON, "actor": PERSON, "fields": ["email"]},
    ),
    (
        row(
            "user.update",
            actor=ADMIN,
            target=PERSON,
            detail={"fields": ["disabled"], "disabled": True, "sessionsEnded": 2},
        ),
        "user.disabled",
        {"user_id": PERSON, "actor": ADMIN, "sessions_ended": 2},
    ),
    (
        row(
            "user.update",
            actor=ADMIN,
            target=PERSON,
            detail={"fields": ["disabled"], "disabled": False, "sessionsEnded": 0},
        ),
        "user.enabled",
        {"user_id": PERSON, "actor": ADMIN},
    ),
    (
        row("user.delete", 204, actor=ADMIN, target=PERSON, detail={"sessionsEnded": 1}),
        "user.deleted",
        {"user_id": PERSON, "actor": ADMIN},
    ),
    (
        row("profile.update", actor=PERSON, target=PERSON, detail={"keys": ["dept", "username"]}),
        "user.profile_changed",
        {"user_id": PERSON, "actor": PERSON, "keys": ["dept", "username"]},
    ),
    (
        row("user.set_profile", actor=ADMIN, target=PERSON, detail={"keys": ["dept"]}),
        "user.profile_changed",
        {"user_id": PERSON, "actor": ADMIN, "keys": ["dept"]},
    ),
    (
        row("profile.photo.set", actor=PERSON, target=PERSON, detail={"bytes": 1234}),
        "user.profile_changed",
        {"user_id": PERSON, "actor": PERSON, "keys": ["picture"]},
    ),
    (
        row("profile.photo.delete", 204, actor=PERSON, target=PERSON, detail={"hadPhoto": True}),
        "user.profile_changed",
        {"user_id": PERSON, "actor": PERSON, "keys": ["picture"]},
    ),
    (
        row("user.reset_password", 204, actor=ADMIN, target=PERSON, detail={"passwordSet": False}),
        "user.password_changed",
        {"user_id": PERSON, "actor": ADMIN, "via": "admin", "password_set": False},
    ),
    (
        row("password_reset.completed", 204, actor=PERSON, target=PERSON, detail={}),
        "user.password_changed",
        {"user_id": PERSON, "actor": PERSON, "via": "reset_link", "password_set": True},
    ),
    (
        row("credentials.password", 204, actor=PERSON, target=PERSON, detail={}),
        "user.password_changed",
        {"user_id": PERSON, "actor": PERSON, "via": "self_service", "password_set": True},
    ),
    (
        row("totp.confirm", actor=PERSON, target=PERSON, detail={"recoveryCodes": 10}),
        "user.authenticator_enrolled",
        {"user_id": PERSON, "actor": PERSON},
    ),
    (
        row("totp.delete", 204, actor=PERSON, target=PERSON, detail={"hadAuthenticator": True}),
        "user.authenticator_removed",
        {"user_id": PERSON, "actor": PERSON},
    ),
    (
        row("user.clear_totp", 204, actor=ADMIN, target=PERSON, detail={"hadAuthenticator": True}),
        "user.authenticator_removed",
        {"user_id": PERSON, "actor": ADMIN},
    ),
    (
        row(
            "passkey.registered",
            201,
            actor=PERSON,
            target=PERSON,
            detail={"passkeyId": "k1", "synced": True, "aaguid": "00"},
        ),
        "user.passkey_enrolled",
        {"user_id": PERSON, "actor": PERSON, "passkey_id": "k1"},
    ),
    (
        row("passkey.removed", 204, actor=PERSON, target=PERSON, detail={"passkeyId": "k1"}),
        "user.passkey_removed",
        {"user_id": PERSON, "actor": PERSON, "passkey_id": "k1"},
    ),
    (
        row("user.remove_passkey", 204, actor=ADMIN, target=PERSON, detail={"passkeyId": "k2"}),
        "user.passkey_removed",
        {"user_id": PERSON, "actor": ADMIN, "passkey_id": "k2"},
    ),
    (
        row("face.enroll", actor=PERSON, target=PERSON, detail={"replaced": False}),
        "user.face_enrolled",
        {"user_id": PERSON, "actor": PERSON, "replaced": False},
    ),
    (
        row("face.delete", 204, actor=PERSON, target=PERSON, detail={"hadFace": True}),
        "user.face_removed",
        {"user_id": PERSON, "actor": PERSON},
    ),
    (
        row("user.clear_face", 204, actor=ADMIN, target=PERSON, detail={"hadFace": True}),
        "user.face_removed",
        {"user_id": PERSON, "actor": ADMIN},
    ),
    (
        row(
            "login.succeeded",
            actor=PERSON,
            target="app-1",
            ip="192.0.2.7",
            detail={"amr": ["pwd"], "acr": "urn:idp:acr:1fa", "sid": "s1"},
        ),
        "signin.succeeded",
        {
            "user_id": PERSON,
            "client_id": "app-1",
            "amr": ["pwd"],
            "acr": "urn:idp:acr:1fa",
            "sid": "s1",
        },
    ),
    (
        row("login.failed", 401, actor=None, target="app-1", detail={"reason": "unknown_account"}),
        "signin.failed",
        {"user_id": None, "client_id": "app-1", "reason": "unknown_account", "method": "password"},
    ),
    (
        row(
            "login.failed",
            401,
            actor=PERSON,
            target="app-1",
            detail={"reason": "no_match", "method": "face", "step": "face"},
        ),
        "signin.failed",
        {
            "user_id": PERSON,
            "client_id": "app-1",
            "reason": "no_match",
            "method": "face",
            "step": "face",
        },
    ),
    (
        row("totp.failed", 401, actor=PERSON, target="app-1", detail={"failures": 2}),
        "signin.failed",
        {
            "user_id": PERSON,
            "client_id": "app-1",
            "reason": "wrong_code",
            "method": "totp",
            "failures": 2,
        },
    ),
    (
        row("login.throttled", 429, actor=None, target="app-1", detail={"retry_after": 4}),
        "signin.throttled",
        {"user_id": None, "client_id": "app-1", "reason": "account_throttled", "retry_after": 4},
    ),
    (
        row(
            "second_factor.throttled",
            429,
            actor=PERSON,
            target="app-1",
            detail={"retry_after": 30, "factor": "code"},
        ),
        "signin.throttled",
        {
            "user_id": PERSON,
            "client_id": "app-1",
            "reason": "factor_throttled",
            "factor": "code",
            "retry_after": 30,
        },
    ),
    (
        row(
            "second_factor.locked",
            429,
            actor=PERSON,
            target="app-1",
            detail={"factor": "code", "failures": 5, "retry_after": 60},
        ),
        "signin.throttled",
        {
            "user_id": PERSON,
            "client_id": "app-1",
            "reason": "factor_locked",
            "factor": "code",
            "failures": 5,
            "retry_after": 60,
        },
    ),
    (
        row("consent.granted", actor=PERSON, target="app-1", detail={"scopes": ["openid"]}),
        "consent.granted",
        {"user_id": PERSON, "client_id": "app-1", "scopes": ["openid"]},
    ),
    (
        row(
            "connection.withdraw",
            204,
            actor=PERSON,
            target="app-1",
            detail={"hadConsent": True, "tokensRevoked": 3},
        ),
        "consent.withdrawn",
        {"user_id": PERSON, "client_id": "app-1", "had_consent": True},
    ),
    (
        row("client.create", 201, actor=ADMIN, target="app-1", detail={"type": "confidential"}),
        "client.created",
        {"client_id": "app-1", "actor": ADMIN, "client_type": "confidential"},
    ),
    (
        row("client.update", actor=ADMIN, target="app-1", detail={"fields": ["redirectUris"]}),
        "client.updated",
        {"client_id": "app-1", "actor": ADMIN, "fields": ["redirectUris"]},
    ),
    (
        row("client.set_scopes", actor=ADMIN, target="app-1", detail={"scopes": ["a", "b"]}),
        "client.updated",
        {"client_id": "app-1", "actor": ADMIN, "fields": ["scopes"]},
    ),
    (
        row("client.delete", 204, actor=ADMIN, target="app-1"),
        "client.deleted",
        {"client_id": "app-1", "actor": ADMIN},
    ),
    (
        row("client.rotate_secret", actor=ADMIN, target="app-1"),
        "client.secret_rotated",
        {"client_id": "app-1", "actor": ADMIN},
    ),
]


@pytest.mark.parametrize(("entry", "kind", "data"), CASES, ids=[c[0].action for c in CASES])
def test_each_row_announces_its_event(entry: AuditEntry, kind: str, data: dict[str, Any]) -> None:
    assert only(entry) == (kind, data)


def test_every_type_has_a_source() -> None:
    covered = {kind for _, kind, _ in CASES} | {we.SESSION_ENDED}
    assert covered == set(we.WEBHOOK_EVENT_TYPES)
    assert {entry.action for entry, _, _ in CASES} == set(we.MAPPED_ACTIONS)


def test_a_change_through_scim_says_so() -> None:
    entry = row(
        "user.update",
        actor="scim-client",
        target=PERSON,
        detail={"fields": ["disabled"], "disabled": True, "sessionsEnded": 0, "via": "scim"},
    )
    assert we.events_of_audit(entry) == [
        (
            "user.disabled",
            {"user_id": PERSON, "via": "scim", "actor": "scim-client", "sessions_ended": 0},
        )
    ]


def test_a_patch_of_fields_and_the_flag_is_two_events() -> None:
    entry = row(
        "user.update",
        actor=ADMIN,
        target=PERSON,
        detail={"fields": ["disabled", "email"], "disabled": True, "sessionsEnded": 0},
    )
    assert [kind for kind, _ in we.events_of_audit(entry)] == ["user.updated", "user.disabled"]
    assert we.events_of_audit(entry)[0][1]["fields"] == ["email"]


@pytest.mark.parametrize(
    ("action", "had"),
    [
        ("totp.delete", "hadAuthenticator"),
        ("user.clear_totp", "hadAuthenticator"),
        ("face.delete", "hadFace"),
        ("user.clear_face", "hadFace"),
        ("profile.photo.delete", "hadPhoto"),
    ],
)
def test_an_idempotent_removal_of_nothing_announces_nothing(action: str, had: str) -> None:
    def events(detail: dict[str, Any]) -> list[we.Event]:
        return we.events_of_audit(row(action, 204, actor=PERSON, target=PERSON, detail=detail))

    assert len(events({had: True})) == 1
    assert events({had: False}) == []
    assert events({}) == []


@pytest.mark.parametrize(("entry", "kind", "data"), CASES, ids=[c[0].action for c in CASES])
def test_a_refused_write_announces_nothing(entry: AuditEntry, kind: str, data: object) -> None:
    """Refusals of writes are rows of their own (``POST /admin/users``, a status >= 400):
    none maps; a sign-in refusal is the event itself."""
    if kind.startswith(("signin.failed", "signin.throttled")):
        return
    refused = AuditEntry(action=entry.action, status_code=409, actor=ADMIN, target=entry.target)
    assert we.events_of_audit(refused) == []


@pytest.mark.parametrize(
    "action",
    [
        "POST /admin/users",
        "PATCH /admin/clients/{client_id}",
        "access.denied",
        "passkey.renamed",
        "totp.enroll",
        "session.end",
        "session.ended",
        "device.approved",
        "consent.denied",
        "group.add_members",
        "POST backchannel_logout",
    ],
)
def test_rows_outside_the_catalogue_announce_nothing(action: str) -> None:
    assert we.events_of_audit(row(action, actor=ADMIN, target=PERSON)) == []


SECRETS = ("password", "secret", "hash", "token", "code", "photo", "email", "ip")


def _keys(value: object) -> list[str]:
    if isinstance(value, dict):
        return [k for key, v in value.items() for k in (str(key), *_keys(v))]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


def test_data_keys_name_no_secret_and_copy_no_address() -> None:
    for entry, _, _ in CASES:
        loud = AuditEntry(
            action=entry.action,
            status_code=entry.status_code,
            actor=entry.actor,
            target=entry.target,
            ip="203.0.113.9",
            detail={**entry.detail, "password": "hunter2", "clientSecret": "s3cr3t"},
        )
        for _, data in we.events_of_audit(loud):
            allowed = {"password_set", "tokens_revoked"}
            named = [k for k in _keys(data) if k not in allowed]
            assert not [k for k in named if any(s in k.lower() for s in SECRETS)], data
            text = repr(data)
            assert "hunter2" not in text and "s3cr3t" not in text and "203.0.113.9" not in text


def test_timestamps_are_now() -> None:
    before = datetime.now(UTC)
    payload = we.webhook_payload("client.deleted", {"client_id": "a"})
    stamped = datetime.strptime(payload["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert before - timedelta(seconds=1) <= stamped <= datetime.now(UTC) + timedelta(seconds=1)
