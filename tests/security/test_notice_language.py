"""The owner's security notice speaks the attacker's language.

The attack: someone who holds a person's session changes the sign-in email address
(``POST /entity/credentials/email``) with ``Accept-Language: ar``. The warning mailed to
the old address, the only one the owner still reads, came in Arabic when the person had
saved no language: the request's language won, and the request was the attacker's. The
"second factor locked" notice, sent when someone who knows the password guesses at the
code, followed the same rule.

What must hold: a security notice is in the person's saved language, else in the
deployment's (``SVC_DEFAULT_LOCALE``, English by default), never in the request's
``Accept-Language``. The mail's ``Content-Language`` says which.

Mail goes to the project's own catcher (``idp mail-catcher``); an entity service and a
sign-in API of the module's own send to it (one entity service with the default language
set to French). The person's token comes from a real sign-in through the proxy; the
sign-in that locks the code starts at ``/oauth2/authorize`` too.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import httpx
import pyotp
import pytest

from tests.harness import oidc, records
from tests.harness.api import fresh_address
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_person, mail_part
from tests.security import token_standing_support as ts

pytestmark = pytest.mark.integration

ARABIC = re.compile("[\u0600-\u06ff]")
ATTACKERS_LANGUAGE = {"Accept-Language": "ar"}
#: Wrong codes before the factor locks (the sign-in API's default policy).
WRONG_CODES_TO_LOCK = 5


@dataclass(frozen=True)
class Mailing:
    mail_dir: Path
    entity: str  # an entity service of the default deployment (English)
    entity_french: str  # one whose deployment's language is French
    signin: str  # a sign-in API


@pytest.fixture(scope="module")
def mailing(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mailing]:
    mail_dir = tmp_path_factory.mktemp("notices")
    before = len(stack.processes)
    smtp = ts.start_mail_catcher(stack, mail_dir)
    try:
        yield Mailing(
            mail_dir,
            ts.start_mailing(stack, "entity", smtp).url,
            ts.start_mailing(stack, "entity", smtp, {"SVC_DEFAULT_LOCALE": "fr"}).url,
            ts.start_mailing(stack, "authui-api", smtp).url,
        )
    finally:
        for process in stack.processes[before:]:
            process.stop()
        del stack.processes[before:]


@pytest.fixture(scope="module")
def app(stack: Stack) -> records.TestClient:
    return ts.self_service_app(stack)


def save_language(stack: Stack, person_id: str, locale: str) -> None:
    records.query(
        stack,
        "UPDATE users SET ui_locale = $2 WHERE id = $1 RETURNING id",
        uuid.UUID(person_id),
        locale,
    )


def change_email_in_arabic(
    stack: Stack, app: records.TestClient, person: records.TestUser, entity_url: str
) -> None:
    """Sign in as ``person`` and change the address, the request asking for Arabic."""
    token = ts.sign_in(stack, app, person).access_token
    answer = httpx.post(
        entity_url + "/entity/credentials/email",
        json={
            "email": f"moved-{uuid.uuid4().hex[:8]}@example.org",
            "currentPassword": person.password,
        },
        headers={
            "Authorization": f"Bearer {token}",
            "X-Forwarded-For": fresh_address(),
            **ATTACKERS_LANGUAGE,
        },
        timeout=20,
    )
    assert answer.status_code == 200, answer.text


def language(mail: EmailMessage) -> tuple[object, bool]:
    """(``Content-Language``, whether the subject or the text holds Arabic script)."""
    text = f"{mail['Subject']}\n{mail_part(mail)}"
    return mail["Content-Language"], bool(ARABIC.search(text))


def test_the_email_changed_notice_ignores_the_requests_language(
    stack: Stack, app: records.TestClient, mailing: Mailing
) -> None:
    unsaved = records.create_user(stack)
    german = records.create_user(stack)
    save_language(stack, german.id, "de")

    for person in (unsaved, german):
        change_email_in_arabic(stack, app, person, mailing.entity)

    assert language(ts.mail_to(mailing.mail_dir, unsaved.email)) == ("en", False)
    assert language(ts.mail_to(mailing.mail_dir, german.email)) == ("de", False)


def test_the_email_changed_notice_falls_back_to_the_deployments_language(
    stack: Stack, app: records.TestClient, mailing: Mailing
) -> None:
    unsaved = records.create_user(stack)

    change_email_in_arabic(stack, app, unsaved, mailing.entity_french)

    assert language(ts.mail_to(mailing.mail_dir, unsaved.email)) == ("fr", False)


def test_the_factor_locked_notice_ignores_the_requests_language(
    stack: Stack, mailing: Mailing
) -> None:
    person = create_person(stack, totp=True)
    assert person.totp_secret is not None
    app = records.create_client(stack, skip_consent=True)
    authorization = oidc.Authorization(app)
    with oidc.Browser(stack) as browser:
        to_login = browser.get("/oauth2/authorize", params=authorization.params("openid"))
    challenge = oidc.query_of(to_login.headers["location"])["challenge"]
    totp = pyotp.TOTP(person.totp_secret)
    current = {totp.at(time.time() + 30 * step) for step in range(-2, 3)}
    wrong = next(c for c in ("000000", "111111", "222222", "333333") if c not in current)

    headers = {"X-Forwarded-For": fresh_address(), **ATTACKERS_LANGUAGE}
    with httpx.Client(base_url=mailing.signin + "/api/v1/auth", headers=headers, timeout=20) as c:
        login = c.post(
            "/login",
            json={"challenge": challenge, "email": person.email, "password": person.password},
        )
        assert login.status_code == 200 and login.json()["next"] == "totp", login.text
        for _ in range(WRONG_CODES_TO_LOCK):
            c.post("/totp", json={"challenge": challenge, "code": wrong})

    assert language(ts.mail_to(mailing.mail_dir, person.email)) == ("en", False)
