"""``POST /entity/credentials/password``: every session ends, refusals name the field, a
recent sign-in is needed, wrong current passwords are limited."""

from __future__ import annotations

import uuid

import pytest

from idp_common.crypto.passwords import verify_password
from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_WRITE
from tests.harness.records import (
    TestUser as Person,
)
from tests.harness.records import (
    create_browser_session,
    create_client,
    issue_session_refresh_token,
    query,
    session_exists,
)
from tests.harness.stack import Stack
from tests.integration.entity.contract import (
    EntityApi,
    assert_guarded,
    assert_problem,
    now,
)
from tests.integration.entity.test_credentials.support import (
    NEW_PASSWORD,
    PASSWORD_PATH,
    STEP_UP,
    audit_actions,
    refresh,
    silent_sign_in,
    stored_hash,
)

pytestmark = pytest.mark.integration


def test_password_route_is_guarded(entity_api: EntityApi) -> None:
    body = {"currentPassword": entity_api.person.password, "newPassword": NEW_PASSWORD}
    assert_guarded(entity_api, "POST", PASSWORD_PATH, SCOPE_IDP_ACCOUNT_WRITE, json=body)


def test_password_change_ends_every_session_and_refresh_token(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    app = create_client(stack, skip_consent=True)
    sessions = [create_browser_session(stack, person.id) for _ in range(2)]
    tokens = [
        issue_session_refresh_token(stack, app.client_id, person.id, s.sid) for _, s in sessions
    ]
    cookie = sessions[0][0]
    assert "code" in silent_sign_in(stack, cookie, app.client_id, app.redirect_uri)
    entity_api.claims["sid"] = sessions[0][1].sid  # the change is made from the first one

    answer = entity_api.post(
        PASSWORD_PATH, json={"currentPassword": person.password, "newPassword": NEW_PASSWORD}
    )

    assert answer.status_code == 204, answer.text
    assert answer.content == b""
    assert verify_password(stored_hash(stack, person), NEW_PASSWORD)
    assert not any(session_exists(stack, s.sid) for _, s in sessions)
    for token in tokens:
        refused = refresh(stack, app.client_id, app.secret, token)
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"] == "invalid_grant"
    assert silent_sign_in(stack, cookie, app.client_id, app.redirect_uri)["error"] == (
        "login_required"
    )
    ended = query(
        stack,
        "SELECT payload FROM event_outbox WHERE payload->>'user_id' = $1 ORDER BY id",
        person.id,
    )
    assert len(ended) == 2
    assert {str(r["payload"]) for r in ended} and all(
        '"reason": "password_changed"' in str(r["payload"]) for r in ended
    )
    live = query(
        stack,
        "SELECT count(*) AS n FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL",
        uuid.UUID(person.id),
    )
    assert live[0]["n"] == 0
    (row,) = [a for a in audit_actions(stack, person) if a[0] == "credentials.password"]
    assert row[1] == 204
    assert NEW_PASSWORD not in str(row) and person.password not in str(row)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"currentPassword": "not the password", "newPassword": NEW_PASSWORD}, "currentPassword"),
        ({"currentPassword": "{current}", "newPassword": "password1"}, "newPassword"),
        ({"currentPassword": "{current}", "newPassword": "short"}, "newPassword"),
        ({"currentPassword": "{current}", "newPassword": "{email} and more"}, "newPassword"),
        ({"currentPassword": "{current}"}, "newPassword"),
        ({"newPassword": NEW_PASSWORD}, "currentPassword"),
        ({"currentPassword": "{current}", "newPassword": NEW_PASSWORD, "x": 1}, "x"),
        ({"currentPassword": "{current}", "newPassword": 12345678}, "newPassword"),
    ],
)
def test_a_refused_password_change_names_the_field_and_changes_nothing(
    stack: Stack, entity_api: EntityApi, person: Person, body: dict[str, object], field: str
) -> None:
    _, session = create_browser_session(stack, person.id)
    before = stored_hash(stack, person)
    sent = {
        k: v.format(current=person.password, email=person.email) if isinstance(v, str) else v
        for k, v in body.items()
    }
    assert_problem(entity_api.post(PASSWORD_PATH, json=sent), 422, field=field)
    assert stored_hash(stack, person) == before
    assert session_exists(stack, session.sid)


def test_password_change_needs_a_recent_sign_in(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    before = stored_hash(stack, person)
    body = {"currentPassword": person.password, "newPassword": NEW_PASSWORD}
    for claims in (
        {"auth_time": now() - 1000, "amr": ["pwd"]},
        {"auth_time": None, "amr": ["pwd"]},
    ):
        entity_api.claims = claims
        refused = entity_api.post(PASSWORD_PATH, json=body)
        assert_problem(refused, 403)
        assert refused.headers["www-authenticate"] == STEP_UP
    assert stored_hash(stack, person) == before
    entity_api.claims = {"auth_time": now() - 60, "amr": ["pwd"]}
    assert entity_api.post(PASSWORD_PATH, json=body).status_code == 204


def test_wrong_current_passwords_are_limited_per_person(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    wrong = {"currentPassword": "guess guess guess", "newPassword": NEW_PASSWORD}
    for _ in range(5):
        assert_problem(entity_api.post(PASSWORD_PATH, json=wrong), 422, field="currentPassword")
    right = {"currentPassword": person.password, "newPassword": NEW_PASSWORD}
    limited = entity_api.post(PASSWORD_PATH, json=right)
    assert_problem(limited, 429)
    assert int(limited.headers["retry-after"]) > 0


def test_a_machine_client_token_is_not_a_person(entity_api: EntityApi) -> None:
    token = entity_api.token(sub="app-machine", auth_time=now())
    body = {"currentPassword": "whatever it is", "newPassword": NEW_PASSWORD}
    answer = entity_api.client.post(
        PASSWORD_PATH, json=body, headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code in (403, 404), answer.text
