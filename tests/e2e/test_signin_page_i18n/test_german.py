"""Acceptance 1 of issue #28, sign-in page part: with ``ui_locales=de`` the page is German
end to end (password, its error, the code step and its error, consent, the 429 wait),
whatever the browser's own language, and ``<html lang="de">``."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pyotp
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_signin_page_i18n.support import (
    alert,
    html_attributes,
    language_page,
    start_sign_in,
    submit_password,
)
from tests.harness import oidc, records
from tests.harness.browser import PageLog
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_person

pytestmark = pytest.mark.e2e

GERMAN_LOGIN = ("E-Mail", "Passwort", "Anmelden")
WRONG_CODE = (
    "Dieser Code ist nicht richtig. Prüfen Sie Ihre Authenticator-App und versuchen Sie es erneut."
)
WITHDRAW = "Sie können diesen Zugriff später in Ihrem Konto widerrufen."


def a_wrong_code(secret: str) -> str:
    """Six digits that are none of the codes the server accepts around now."""
    totp = pyotp.TOTP(secret)
    now = time.time()
    accepted = {totp.at(now + offset) for offset in (-60, -30, 0, 30, 60)}
    return next(code for code in ("000000", "111111", "222222") if code not in accepted)


def test_password_code_and_consent_in_german(
    browser: Browser,
    page_log: PageLog,
    stack: Stack,
    app: records.TestClient,
    screenshot: Callable[..., Path],
) -> None:
    """The browser speaks English (Accept-Language: en-US); the application asks for German."""
    person = create_person(stack, totp=True)
    assert person.totp_secret is not None
    authorization = oidc.Authorization(app)
    with language_page(browser, page_log, "en-US") as page:
        start_sign_in(page, stack, authorization, ui_locales="de")
        assert html_attributes(page) == ("de", "ltr")
        expect(page.get_by_role("heading", name="Anmelden", exact=True)).to_be_focused()
        assert page.title() == "Anmelden"
        expect(page.locator(".lead")).to_have_text(f"weiter zu Test app {app.client_id}")
        expect(page.get_by_role("link", name="Passwort vergessen?")).to_be_visible()
        expect(page.get_by_label("Sprache")).to_have_value("de")

        page.get_by_role("button", name="Anmelden", exact=True).click()
        expect(page.get_by_label("E-Mail", exact=True)).to_have_accessible_description(
            "Geben Sie Ihre E-Mail-Adresse ein"
        )
        expect(page.get_by_label("Passwort", exact=True)).to_have_accessible_description(
            "Geben Sie Ihr Passwort ein"
        )

        submit_password(page, GERMAN_LOGIN, person.email, "not the password")
        expect(alert(page)).to_have_text("E-Mail-Adresse oder Passwort ist falsch")
        expect(alert(page)).to_be_focused()
        screenshot("de-wrong-password", page)

        submit_password(page, GERMAN_LOGIN, person.email, person.password)
        expect(page.get_by_role("heading", name="Code eingeben")).to_be_focused()
        assert page.title() == "Code eingeben"
        code = page.get_by_label("Einmalcode")
        hint = re.compile("6-stelligen Code ein, den sie anzeigt")
        expect(code).to_have_accessible_description(hint)
        code.fill("123")
        page.get_by_role("button", name="Bestätigen").click()
        expect(code).to_have_accessible_description(re.compile("Geben Sie den 6-stelligen Code"))
        code.fill(a_wrong_code(person.totp_secret))
        page.get_by_role("button", name="Bestätigen").click()
        expect(alert(page)).to_have_text(WRONG_CODE)
        screenshot("de-wrong-code", page)

        code.fill(pyotp.TOTP(person.totp_secret).now())
        page.get_by_role("button", name="Bestätigen").click()
        title = f"Test app {app.client_id} Zugriff auf Ihr Konto erlauben?"
        expect(page.get_by_role("heading", name=title)).to_be_focused()
        assert page.title() == title
        expect(page.get_by_text("möchte:")).to_be_visible()
        expect(page.get_by_text(WITHDRAW)).to_be_visible()
        expect(page.get_by_role("button", name="Ablehnen")).to_be_visible()
        assert html_attributes(page) == ("de", "ltr")
        screenshot("de-consent", page)
        page.get_by_role("button", name="Erlauben").click()

        page.wait_for_url(app.redirect_uri + "?**")
        values = oidc.query_of(page.url)
        assert values["state"] == authorization.state
        assert values["code"]
    assert page_log.problems(expected_statuses=[401]) == []


def trip_throttle(page: Page, email: str) -> str:
    """Wrong passwords for one account, as fast as a person can submit them, until the
    account's throttle refuses one (5 free failures, then a growing wait): the message."""
    for _ in range(12):
        submit_password(page, GERMAN_LOGIN, email, "still not the password")
        expect(alert(page)).to_be_visible()
        expect(page.get_by_role("button", name="Anmelden", exact=True)).to_be_enabled()
        text = alert(page).inner_text()
        if "E-Mail-Adresse oder Passwort ist falsch" not in text:
            return text
    raise AssertionError("the throttle never refused an attempt")


def test_the_wait_after_too_many_attempts_in_german(
    browser: Browser,
    page_log: PageLog,
    stack: Stack,
    first_party: records.TestClient,
    screenshot: Callable[..., Path],
) -> None:
    """The account's throttle trips for real; the 429's ``Retry-After`` is said in German,
    singular for one second and plural otherwise (ICU plural rules)."""
    person = records.create_user(stack)
    with language_page(browser, page_log, "en-US") as page:
        start_sign_in(page, stack, oidc.Authorization(first_party), scope="openid", ui_locales="de")
        message = trip_throttle(page, person.email)
        found = re.fullmatch(
            r"Zu viele Versuche\. Versuchen Sie es in (\d+) (Sekunde|Sekunden) erneut\.", message
        )
        assert found, message
        assert (found.group(2) == "Sekunde") == (found.group(1) == "1"), message
        screenshot("de-too-many-attempts", page)
    assert page_log.problems(expected_statuses=[401, 429]) == []
