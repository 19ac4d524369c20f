"""``POST /entity/credentials/password`` and ``/email`` (spec part 4; issue 5 acceptance 1, 4
and 5): the current password, the recent sign-in (RFC 9470), the policy, every session
ended with the fan-out on a password change, the email's uniqueness and the notice."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from idp_common.crypto.passwords import verify_password
from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_WRITE
from tests.harness.records import (
    TestUser as Person,
)
from tests.harness.records import (
    create_browser_session,
    create_client,
    create_user,
    issue_session_refresh_token,
    query,
    session_exists,
)
from tests.harness.stack import Stack, start_with_mail_catcher
from tests.integration.entity.contract import (
    EntityApi,
    assert_guarded,
    assert_problem,
    now,
)
from tests.integration.signin_fixtures import wait_for_mail

pytestmark = pytest.mark.integration

PASSWORD_PATH = "/entity/credentials/password"
EMAIL_PATH = "/entity/credentials/email"
NEW_PASSWORD = "an entirely new passphrase 42"
STEP_UP = 'Bearer error="insufficient_user_authentication", max_age=300'


def stored_hash(stack: Stack, person: Person) -> str:
    rows = query(
        stack, "SELECT hash FROM password_credentials WHERE user_id = $1", uuid.UUID(person.id)
    )
    return str(rows[0]["hash"])


def user_row(stack: Stack, person: Person) -> dict[str, object]:
    return query(
        stack, "SELECT email, email_verified FROM users WHERE id = $1", uuid.UUID(person.id)
    )[0]


def audit_actions(stack: Stack, person: Person) -> list[tuple[object, object, object]]:
    rows = query(
        stack,
        "SELECT action, status_code, detail FROM audit_events WHERE actor = $1 ORDER BY id",
        person.id,
    )
    return [(r["action"], r["status_code"], r["detail"]) for r in rows]


def refresh(stack: Stack, client_id: str, secret: str | None, token: str) -> httpx.Response:
    return httpx.post(
        stack.proxy_url + "/oauth2/token",
        auth=(client_id, secret or ""),
        data={"grant_type": "refresh_token", "refresh_token": token},
        timeout=10,
    )


def silent_sign_in(stack: Stack, cookie: str, client_id: str, redirect_uri: str) -> dict[str, str]:
    """``prompt=none`` with the browser's cookie: the query the client gets back."""
    answer = httpx.get(
        stack.proxy_url + "/oauth2/authorize",
        params={
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "scope": "openid",
            "state": "s",
            "prompt": "none",
        },
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=10,
    )
    assert answer.status_code in (302, 303), answer.text
    return {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["location"]).query).items()}


# --- password --------------------------------------------------------------------------------


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


# --- email -----------------------------------------------------------------------------------


def test_email_route_is_guarded(entity_api: EntityApi) -> None:
    body = {"email": "new@example.com", "currentPassword": entity_api.person.password}
    assert_guarded(entity_api, "POST", EMAIL_PATH, SCOPE_IDP_ACCOUNT_WRITE, json=body)


def test_email_change_takes_effect_at_once_unverified(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    _, session = create_browser_session(stack, person.id)
    new = f"moved-{uuid.uuid4().hex[:8]}@Example.org"
    answer = entity_api.post(EMAIL_PATH, json={"email": new, "currentPassword": person.password})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["id"] == person.id
    assert body["email"] == new and body["emailVerified"] is False
    assert user_row(stack, person) == {"email": new, "email_verified": False}
    assert session_exists(stack, session.sid)  # an address change keeps the sessions
    (row,) = [a for a in audit_actions(stack, person) if a[0] == "credentials.email"]
    assert row[1] == 200
    assert new.lower() not in str(row).lower() and person.email not in str(row)
    # the stack's SMTP port is closed: the notice fails after the answer, the change stands
    time.sleep(0.5)
    assert user_row(stack, person)["email"] == new


def test_a_change_of_letter_case_keeps_the_address_verified(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    upper = person.email.upper()
    body = {"email": upper, "currentPassword": person.password}
    answer = entity_api.post(EMAIL_PATH, json=body)
    assert answer.status_code == 200, answer.text
    assert user_row(stack, person) == {"email": upper, "email_verified": True}


def test_an_address_someone_else_uses_is_a_409(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    other = create_user(stack)
    body = {"email": other.email.upper(), "currentPassword": person.password}
    assert_problem(entity_api.post(EMAIL_PATH, json=body), 409, field="email")
    assert user_row(stack, person)["email"] == person.email


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"email": "not-an-address", "currentPassword": "{current}"}, "email"),
        ({"email": "a@b", "currentPassword": "{current}"}, "email"),
        ({"email": "nul\u0000@example.com", "currentPassword": "{current}"}, "email"),
        ({"email": "two words@example.com", "currentPassword": "{current}"}, "email"),
        ({"email": "x" * 250 + "@example.com", "currentPassword": "{current}"}, "email"),
        ({"email": "fine@example.com", "currentPassword": "wrong password"}, "currentPassword"),
        ({"email": "fine@example.com"}, "currentPassword"),
        ({"currentPassword": "{current}"}, "email"),
        ({"email": "fine@example.com", "currentPassword": "{current}", "name": "x"}, "name"),
    ],
)
def test_a_refused_email_change_names_the_field(
    stack: Stack, entity_api: EntityApi, person: Person, body: dict[str, str], field: str
) -> None:
    sent = {k: v.format(current=person.password) for k, v in body.items()}
    assert_problem(entity_api.post(EMAIL_PATH, json=sent), 422, field=field)
    assert user_row(stack, person) == {"email": person.email, "email_verified": True}


def test_email_change_needs_a_recent_sign_in(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    entity_api.claims = {"auth_time": now() - 301, "amr": ["pwd"]}
    body = {"email": "late@example.com", "currentPassword": person.password}
    refused = entity_api.post(EMAIL_PATH, json=body)
    assert_problem(refused, 403)
    assert refused.headers["www-authenticate"] == STEP_UP
    assert user_row(stack, person)["email"] == person.email


@pytest.fixture
def mailed_entity(extra_processes: Stack, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The mail catcher on a free port and an entity service that sends to it."""
    mail_dir = tmp_path / "mail"
    service = start_with_mail_catcher(extra_processes, "entity", mail_dir)
    yield service.url, mail_dir


def test_the_old_address_gets_a_notice(
    entity_api: EntityApi, person: Person, mailed_entity: tuple[str, Path]
) -> None:
    base, mail_dir = mailed_entity
    entity_api.client = httpx.Client(base_url=base, timeout=20)
    new = f"moved-{uuid.uuid4().hex[:8]}@example.org"
    answer = entity_api.post(EMAIL_PATH, json={"email": new, "currentPassword": person.password})
    assert answer.status_code == 200, answer.text
    (mail,) = wait_for_mail(mail_dir)
    assert mail["To"] == person.email
    assert mail["Subject"] == "Your sign-in email address was changed"
    assert new not in mail.get_content()
