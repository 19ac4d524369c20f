"""Languages on the server (issue #28, docs/languages.md), through the real stack.

- The sign-in challenge answers ``locale``: the authorization request's ``ui_locales``
  (also when pushed, RFC 9126), else the saved language of the person the challenge
  names, else the request's ``Accept-Language``, else ``en``.
- ``/entity/preferences`` saves the language (``de-AT`` as ``de``; 422 naming ``locale``
  otherwise; audited ``preferences.update``).
- The reset mail comes in the person's language (saved, else the request's), as text and
  HTML alternatives, with the provider's brand.
- ``/admin/mail-templates`` previews each mail in each language.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    SCOPE_IDP_ACCOUNT_READ,
    SCOPE_IDP_ACCOUNT_WRITE,
    SCOPE_IDP_BRANDING_READ,
)
from tests.harness import records
from tests.harness.api import ApiClient, assert_guarded, assert_problem, create_administrator
from tests.harness.pkce import pkce_pair
from tests.harness.stack import Stack, start_with_mail_catcher
from tests.integration.entity.contract import EntityApi
from tests.integration.signin_fixtures import (
    audit_rows,
    create_client,
    create_person,
    mail_part,
    new_challenge,
    read_challenge,
    signin_client,
    sql,
    wait_for_mail,
)

pytestmark = pytest.mark.integration
PREFERENCES = "/entity/preferences"


# --- the challenge's language ---------------------------------------------------------------


def authorize_params(client_id: str, redirect_uri: str, **extra: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": "openid email",
        "state": "st",
        "code_challenge": pkce_pair()[1],
        "code_challenge_method": "S256",
        **extra,
    }


def challenge_of(answer: httpx.Response) -> str:
    assert answer.status_code in (302, 303), answer.text
    login = urlsplit(answer.headers["location"])
    assert login.path == "/auth/login"
    return parse_qs(login.query)["challenge"][0]


def read_locale(stack: Stack, challenge: str, accept_language: str | None = None) -> str:
    headers = {"Accept-Language": accept_language} if accept_language else {}
    with httpx.Client(base_url=stack.proxy_url, timeout=20) as browser:
        answer = browser.get(f"/api/v1/auth/challenge/{challenge}", headers=headers)
    assert answer.status_code == 200, answer.text
    locale: str = answer.json()["locale"]
    return locale


@pytest.mark.parametrize(
    ("ui_locales", "accept_language", "expected", "stored"),
    [
        pytest.param("de", "fr", "de", ["de"], id="ui_locales"),
        pytest.param("xx de", None, "de", ["xx", "de"], id="first-supported-of-ui_locales"),
        pytest.param("DE-at", None, "de", ["DE-at"], id="region-falls-back"),
        pytest.param("xx yy", "es-MX,es;q=0.9", "es", ["xx", "yy"], id="then-accept-language"),
        pytest.param(None, "ar", "ar", [], id="accept-language-alone"),
        pytest.param(None, "it, ja;q=0.5", "en", [], id="nothing-supported"),
        pytest.param(None, None, "en", [], id="nothing-asked"),
    ],
)
def test_the_challenge_answers_the_language_asked_for(
    stack: Stack,
    ui_locales: str | None,
    accept_language: str | None,
    expected: str,
    stored: list[str],
) -> None:
    rp = create_client(stack)
    extra = {} if ui_locales is None else {"ui_locales": ui_locales}
    with httpx.Client(base_url=stack.proxy_url, timeout=20) as browser:
        start = browser.get(
            "/oauth2/authorize", params=authorize_params(rp.client_id, rp.redirect_uri, **extra)
        )
    challenge = challenge_of(start)
    kept = read_challenge(stack, challenge)
    assert kept is not None and kept.ui_locales == stored
    assert read_locale(stack, challenge, accept_language) == expected


def test_a_pushed_request_keeps_its_ui_locales(stack: Stack) -> None:
    app = records.create_client(stack)
    assert app.secret
    params = authorize_params(app.client_id, app.redirect_uri, ui_locales="ar")
    with httpx.Client(base_url=stack.proxy_url, timeout=20) as browser:
        pushed = browser.post("/oauth2/par", data=params, auth=(app.client_id, app.secret))
        assert pushed.status_code == 201, pushed.text
        query = {"client_id": app.client_id, "request_uri": pushed.json()["request_uri"]}
        start = browser.get("/oauth2/authorize", params=query)
    challenge = challenge_of(start)
    assert read_locale(stack, challenge, "de") == "ar"


def test_the_saved_language_beats_accept_language_once_the_person_is_known(
    stack: Stack,
) -> None:
    person = create_person(stack)
    rp = create_client(stack)
    sql(
        stack,
        "UPDATE users SET ui_locale = 'es' WHERE id = :u RETURNING id",
        u=uuid.UUID(person.id),
    )
    named = new_challenge(stack, rp, step="consent", user_id=person.id)
    assert read_locale(stack, named, "de-DE,de;q=0.9") == "es"
    # ui_locales still comes first
    asked = new_challenge(stack, rp, step="consent", user_id=person.id, ui_locales=["fr"])
    assert read_locale(stack, asked, "de") == "fr"
    # a challenge that names nobody yet has only the browser's languages
    anonymous = new_challenge(stack, rp)
    assert read_locale(stack, anonymous, "de-DE,de;q=0.9") == "de"


# --- /entity/preferences --------------------------------------------------------------------


@pytest.fixture
def me(stack: Stack) -> Iterator[EntityApi]:
    api = EntityApi(stack, records.create_user(stack))
    try:
        yield api
    finally:
        api.close()


def saved_locale(stack: Stack, person_id: str) -> Any:
    return sql(stack, "SELECT ui_locale FROM users WHERE id = :u", u=uuid.UUID(person_id))[0][0]


def test_preferences_round_trip(stack: Stack, me: EntityApi) -> None:
    person = me.person.id
    assert me.get(PREFERENCES).json() == {"locale": None}
    updated_at = sql(stack, "SELECT updated_at FROM users WHERE id = :u", u=uuid.UUID(person))

    answer = me.put(PREFERENCES, json={"locale": "de-AT"})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"locale": "de"}
    assert me.get(PREFERENCES).json() == {"locale": "de"}
    assert saved_locale(stack, person) == "de"
    # not a profile change: the updated_at claim stays
    assert sql(stack, "SELECT updated_at FROM users WHERE id = :u", u=uuid.UUID(person)) == (
        updated_at
    )
    rows = audit_rows(stack, "preferences.update", actor=person)
    assert len(rows) == 1

    assert me.put(PREFERENCES, json={"locale": "AR"}).json() == {"locale": "ar"}
    cleared = me.put(PREFERENCES, json={"locale": None})
    assert cleared.json() == {"locale": None}
    assert saved_locale(stack, person) is None
    assert len(audit_rows(stack, "preferences.update", actor=person)) == 3


@pytest.mark.parametrize(
    "body",
    [
        {"locale": "xx"},
        {"locale": "*"},
        {"locale": "de_DE;q=1"},
        {"locale": "x" * 65},
        {"locale": 7},
        {},
        {"locale": "de", "theme": "dark"},
    ],
)
def test_an_unsupported_locale_is_refused_and_nothing_changes(
    stack: Stack, me: EntityApi, body: dict[str, Any]
) -> None:
    assert me.put(PREFERENCES, json={"locale": "fr"}).status_code == 200
    refused = me.put(PREFERENCES, json=body)
    assert_problem(refused, 422)
    fields = [error["field"] for error in refused.json()["errors"]]
    assert any(field in ("locale", "theme") for field in fields), fields
    assert saved_locale(stack, me.person.id) == "fr"
    assert len(audit_rows(stack, "preferences.update", actor=me.person.id)) == 1


def test_preferences_need_the_account_scopes(me: EntityApi) -> None:
    assert_guarded(me, "GET", PREFERENCES, SCOPE_IDP_ACCOUNT_READ)
    assert_guarded(me, "PUT", PREFERENCES, SCOPE_IDP_ACCOUNT_WRITE, json={"locale": "de"})


# --- the reset mail -------------------------------------------------------------------------


@pytest.fixture
def mailed_authui(extra_processes: Stack, tmp_path: Path) -> tuple[str, Path]:
    mail_dir = tmp_path / "mail"
    service = start_with_mail_catcher(extra_processes, "authui-api", mail_dir)
    return service.url, mail_dir


def test_the_reset_mail_comes_in_the_persons_language(
    stack: Stack, mailed_authui: tuple[str, Path]
) -> None:
    base, mail_dir = mailed_authui
    browser_german = create_person(stack)
    saved_french = create_person(stack)
    sql(
        stack,
        "UPDATE users SET ui_locale = 'fr' WHERE id = :u RETURNING id",
        u=uuid.UUID(saved_french.id),
    )
    with signin_client(base) as client:
        for person in (browser_german, saved_french):
            asked = client.post(
                "/api/v1/auth/password-reset",
                json={"email": person.email},
                headers={"Accept-Language": "de-CH, de;q=0.9, en;q=0.5"},
            )
            assert asked.status_code == 202
            assert asked.json()["detail"]  # the answer itself is the same for every address
    mails = {mail["To"]: mail for mail in wait_for_mail(mail_dir, 2)}

    german = mails[browser_german.email]
    assert german["Subject"] == "Neues Passwort festlegen"
    assert german["Content-Language"] == "de"
    assert german.get_content_type() == "multipart/alternative"
    assert [part.get_content_type() for part in german.iter_parts()] == [
        "text/plain",
        "text/html",
    ]
    text, html = mail_part(german), mail_part(german, "html")
    link = next(word for word in text.split() if word.startswith(f"{stack.issuer}/auth/reset?"))
    assert "innerhalb von 30 Minuten" in text and "Hallo Test Person," in text
    assert "within 30 minutes" not in text
    assert '<html lang="de" dir="ltr">' in html
    assert f'href="{link}"' in html
    assert "Neues Passwort wählen" in html

    french = mails[saved_french.email]
    assert french["Subject"] == "Définir un nouveau mot de passe"
    assert "dans les 30 minutes" in mail_part(french)


# --- /admin/mail-templates ------------------------------------------------------------------


@pytest.fixture
def admin(stack: Stack) -> Iterator[ApiClient]:
    actor = create_administrator(stack, ADMIN_SCOPES)
    api = ApiClient(stack, "admin", actor, ADMIN_SCOPES, fresh_sign_in=True)
    try:
        yield api
    finally:
        api.close()


def test_the_list_of_mail_templates(admin: ApiClient) -> None:
    answer = admin.get("/admin/mail-templates")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert [t["kind"] for t in body["templates"]] == [
        "password_reset",
        "factor_locked",
        "email_changed",
        "credential_changed",
    ]
    assert all(t["name"] for t in body["templates"])
    assert body["locales"] == ["en", "de", "fr", "es", "ar"]
    assert_guarded(admin, "GET", "/admin/mail-templates", SCOPE_IDP_BRANDING_READ)


def test_a_preview_shows_the_mail_with_the_providers_brand(stack: Stack, admin: ApiClient) -> None:
    before = admin.get("/admin/branding")
    assert before.status_code == 200, before.text
    name = f"Preview {uuid.uuid4().hex[:6]}"
    changed = admin.put("/admin/branding", json={"productName": name, "primaryColor": "#0B5FFF"})
    assert changed.status_code == 200, changed.text
    try:
        answer = admin.get("/admin/mail-templates/factor_locked/preview", params={"locale": "ar"})
        assert answer.status_code == 200, answer.text
        preview = answer.json()
        assert preview["kind"] == "factor_locked" and preview["locale"] == "ar"
        assert preview["subject"] == "شخص ما يحاول تسجيل الدخول إلى حسابك"
        assert name in preview["text"] and name in preview["html"]
        assert 'dir="rtl"' in preview["html"] and "#0b5fff" in preview["html"]
        assert "href" not in preview["html"]

        german = admin.get("/admin/mail-templates/password_reset/preview?locale=de-AT").json()
        assert german["locale"] == "de" and german["subject"] == "Neues Passwort festlegen"
        assert "EXAMPLE-NOT-A-REAL-TOKEN" in german["text"]
        english = admin.get("/admin/mail-templates/email_changed/preview").json()
        assert english["locale"] == "en"
        assert english["subject"] == "Your sign-in email address was changed"
        assert stack.issuer.rstrip("/") in english["text"]
    finally:
        old = before.json()
        admin.put(
            "/admin/branding",
            json={"productName": old["productName"], "primaryColor": old["primaryColor"]},
        )


def test_a_preview_of_an_unknown_kind_or_language(admin: ApiClient) -> None:
    assert_problem(admin.get("/admin/mail-templates/welcome/preview?locale=en"), 404)
    refused = admin.get("/admin/mail-templates/password_reset/preview?locale=xx")
    assert_problem(refused, 422, field="locale")
    assert_guarded(
        admin, "GET", "/admin/mail-templates/password_reset/preview", SCOPE_IDP_BRANDING_READ
    )
