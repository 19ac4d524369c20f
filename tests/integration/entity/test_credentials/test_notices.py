"""The person is told: an email change mails the old address, a password change mails the
person, each in the person's saved language, else the deployment's, never in the language
the request asked for; each notice leaves one audit row (docs/mail-templates.md).

Mail goes to the project's own catcher (``idp mail-catcher``) through an entity service of
the test's own; the stack's service sends to a closed port, so its notices fail, audited.
"""

from __future__ import annotations

import uuid
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.harness.records import TestUser as Person
from tests.harness.records import create_browser_session, query
from tests.harness.rows import notice_rows
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi, now
from tests.integration.entity.test_credentials.support import (
    EMAIL_PATH,
    NEW_PASSWORD,
    PASSWORD_PATH,
)
from tests.integration.signin_fixtures import mail_part, wait_for_mail

pytestmark = pytest.mark.integration

ATTACKERS_LANGUAGE = "ar"
FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
CALLER = "198.51.100.23"


def signed_in(stack: Stack, api: EntityApi, base: str | None = None) -> EntityApi:
    """``api`` acting on a live browser session of its person (a credential change needs
    a recent sign-in that stands on one), sending to ``base`` when given."""
    _, session = create_browser_session(stack, api.person.id)
    api.claims = {"auth_time": now(), "amr": ["pwd"], "sid": session.sid}
    if base is not None:
        api.client = httpx.Client(base_url=base, timeout=20)
    return api


def as_attacker(api: EntityApi, method: str, path: str, body: dict[str, Any]) -> httpx.Response:
    """A request asking for Arabic, from ``CALLER``, with a Firefox on Windows."""
    headers = {"Accept-Language": ATTACKERS_LANGUAGE, "User-Agent": FIREFOX}
    return api.call(method, path, json=body, address=CALLER, headers=headers)


def change_email(api: EntityApi, person: Person) -> str:
    new = f"moved-{uuid.uuid4().hex[:8]}@example.org"
    answer = as_attacker(
        api, "POST", EMAIL_PATH, {"email": new, "currentPassword": person.password}
    )
    assert answer.status_code == 200, answer.text
    return new


def assert_no_address(rows: list[dict[str, object]], *addresses: str) -> None:
    for address in addresses:
        assert address.lower() not in str(rows).lower()


def the_text(mail: EmailMessage) -> str:
    return f"{mail['Subject']}\n{mail_part(mail)}\n{mail_part(mail, 'html')}"


def test_the_email_notice_is_in_the_deployments_language_not_the_requests(
    stack: Stack, entity_api: EntityApi, person: Person, mailed_entity: tuple[str, Path]
) -> None:
    base, mail_dir = mailed_entity
    new = change_email(signed_in(stack, entity_api, base), person)

    (mail,) = wait_for_mail(mail_dir)
    assert mail["To"] == person.email
    assert mail["Content-Language"] == "en"
    assert mail["Subject"] == "Your sign-in email address was changed"
    text = mail_part(mail)
    assert "this address no longer signs in" in text
    assert f"IP address: {CALLER}" in text
    assert "Device: Firefox 128 on Windows" in text
    assert "UTC" in text
    assert f"{stack.issuer.rstrip('/')}/console/account/email" in text.split()
    assert new not in the_text(mail)
    assert not any("\u0600" <= ch <= "\u06ff" for ch in the_text(mail))

    (row,) = notice_rows(stack, person.id)
    assert row["action"] == "notice.sent" and row["status_code"] == 200
    assert row["target_type"] == "user" and row["target"] == person.id
    assert row["detail"] == {"credential": "email", "change": "changed"}
    assert row["ip"] == CALLER
    assert_no_address([row], person.email, new)


def test_a_person_who_saved_german_gets_the_email_notice_in_german(
    stack: Stack, entity_api: EntityApi, person: Person, mailed_entity: tuple[str, Path]
) -> None:
    base, mail_dir = mailed_entity
    api = signed_in(stack, entity_api, base)
    saved = api.put("/entity/preferences", json={"locale": "de"})
    assert saved.status_code == 200, saved.text

    change_email(api, person)

    (mail,) = wait_for_mail(mail_dir)
    assert mail["To"] == person.email
    assert mail["Content-Language"] == "de"
    assert mail["Subject"] == "Ihre E-Mail-Adresse für die Anmeldung wurde geändert"
    assert f"IP-Adresse: {CALLER}" in mail_part(mail)
    assert "Gerät: Firefox 128 unter Windows" in mail_part(mail)


def test_a_password_change_sends_the_credential_changed_notice(
    stack: Stack, entity_api: EntityApi, person: Person, mailed_entity: tuple[str, Path]
) -> None:
    base, mail_dir = mailed_entity
    api = signed_in(stack, entity_api, base)
    body = {"currentPassword": person.password, "newPassword": NEW_PASSWORD}

    answer = as_attacker(api, "POST", PASSWORD_PATH, body)

    assert answer.status_code == 204, answer.text
    assert answer.content == b""
    (mail,) = wait_for_mail(mail_dir)
    assert mail["To"] == person.email
    assert mail["Content-Language"] == "en"
    assert mail["Subject"] == "The password of your account was changed"
    text = mail_part(mail)
    issuer = stack.issuer.rstrip("/")
    assert f"IP address: {CALLER}" in text and "Device: Firefox 128 on Windows" in text
    assert f"{issuer}/auth/reset" in text.split()
    assert f"{issuer}/console/account/password" in text.split()
    assert 'dir="ltr"' in mail_part(mail, "html")
    assert NEW_PASSWORD not in the_text(mail) and person.password not in the_text(mail)

    (row,) = notice_rows(stack, person.id)
    assert row["action"] == "notice.sent"
    assert row["detail"] == {"credential": "password", "change": "changed"}
    assert row["actor"] == "service:notice"
    assert_no_address([row], person.email)


def test_a_notice_that_cannot_be_sent_is_audited_and_the_change_stands(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    # the stack's own entity service sends to a closed port
    api = signed_in(stack, entity_api)
    body = {"currentPassword": person.password, "newPassword": NEW_PASSWORD}

    assert as_attacker(api, "POST", PASSWORD_PATH, body).status_code == 204

    (row,) = notice_rows(stack, person.id)
    assert row["action"] == "notice.failed" and row["status_code"] == 502
    assert row["detail"] == {
        "credential": "password",
        "change": "changed",
        "reason": "mail_not_sent",
    }
    assert row["target"] == person.id
    assert_no_address([row], person.email)
    changed = query(
        stack,
        "SELECT count(*) AS n FROM audit_events WHERE action = 'credentials.password' "
        "AND actor = $1",
        person.id,
    )
    assert changed[0]["n"] == 1
