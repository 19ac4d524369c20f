"""``POST /entity/credentials/email``: takes effect at once unverified, 409 for a taken
address, a recent sign-in is needed, the old address gets a notice."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import httpx
import pytest

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_WRITE
from tests.harness.records import (
    TestUser as Person,
)
from tests.harness.records import (
    create_browser_session,
    create_user,
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
    EMAIL_PATH,
    STEP_UP,
    audit_actions,
    user_row,
)
from tests.integration.signin_fixtures import mail_part, wait_for_mail

pytestmark = pytest.mark.integration


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
    assert new not in mail_part(mail) and new not in mail_part(mail, "html")
