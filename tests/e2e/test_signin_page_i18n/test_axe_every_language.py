"""axe-core finds no serious or critical violation on any screen of the sign-in page in
any of the five languages, and each screen is in that language (``<html lang>`` and its
heading from that language's catalogue). The browser's own language is the one tested,
so the pages without a challenge choose it too (``navigator.languages``)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyotp
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_signin_page_i18n.support import (
    LOCALES,
    ROOT,
    html_attributes,
    language_page,
    start_sign_in,
    submit_password,
)
from tests.harness import oidc, records
from tests.harness.browser import PageLog
from tests.harness.console import axe_violations
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_person

pytestmark = pytest.mark.e2e

BROWSER_LOCALE = {"en": "en-US", "de": "de-DE", "fr": "fr-FR", "es": "es-ES", "ar": "ar-EG"}


def catalogue(locale: str) -> dict[str, str]:
    text = (ROOT / "web/auth/src/i18n" / f"{locale}.json").read_text(encoding="utf-8")
    messages: dict[str, str] = json.loads(text)
    return messages


def check(page: Page, locale: str, heading: str | re.Pattern[str], name: str, shot: Any) -> None:
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    assert html_attributes(page) == (locale, "rtl" if locale == "ar" else "ltr")
    violations = axe_violations(page)
    assert not violations, f"{locale} {name}: " + json.dumps(violations, indent=1)
    shot(f"{locale}-{name}", page)


@pytest.mark.parametrize("locale", LOCALES)
def test_no_serious_violation_on_any_screen(
    locale: str,
    browser: Browser,
    page_log: PageLog,
    stack: Stack,
    app: records.TestClient,
    screenshot: Callable[..., Path],
) -> None:
    text = catalogue(locale)
    person = create_person(stack, totp=True)
    assert person.totp_secret is not None
    login = (text["field.email"], text["field.password"], text["login.submit"])
    with language_page(browser, page_log, BROWSER_LOCALE[locale]) as page:
        start_sign_in(page, stack, oidc.Authorization(app), ui_locales=locale)
        check(page, locale, text["login.title"], "password", screenshot)

        face = page.get_by_role("button", name=text["login.withFace"])
        if face.count() > 0:
            face.click()
            check(page, locale, text["face.title"], "face", screenshot)
            page.get_by_role("button", name=text["face.submit"], exact=True).click()
            expect(page.locator(".field-error:visible").first).to_be_visible()
            check(page, locale, text["face.title"], "face-errors", screenshot)
            page.get_by_role("button", name=text["face.usePassword"]).click()

        submit_password(page, login, person.email, "not the password")
        expect(page.get_by_role("alert")).to_have_text(text["login.wrongCredentials"])
        check(page, locale, text["login.title"], "wrong-password", screenshot)

        submit_password(page, login, person.email, person.password)
        check(page, locale, text["totp.title"], "code", screenshot)
        code = page.get_by_label(text["totp.label"])
        code.fill("12")
        page.get_by_role("button", name=text["totp.submit"]).click()
        expect(code).to_have_attribute("aria-invalid", "true")
        check(page, locale, text["totp.title"], "code-error", screenshot)

        code.fill(pyotp.TOTP(person.totp_secret).at(time.time()))
        page.get_by_role("button", name=text["totp.submit"]).click()
        expect(page.get_by_role("button", name=text["consent.allow"])).to_be_visible()
        check(page, locale, re.compile(re.escape(app.client_id)), "consent", screenshot)

        for path, heading, name in (
            ("/auth/reset", text["reset.title"], "reset-request"),
            ("/auth/reset?token=not-a-live-token", text["resetConfirm.title"], "reset-confirm"),
            ("/auth/logged-out", text["loggedOut.title"], "logged-out"),
            ("/auth/device", text["device.title"], "device"),
            ("/auth/login", text["error.missing.title"], "error-missing"),
            ("/auth/nothing-here", text["error.notFound.title"], "error-not-found"),
        ):
            page.goto(stack.proxy_url + path)
            expect(page.locator("h1")).to_be_focused()
            check(page, locale, heading, name, screenshot)
        page.get_by_label(text["switcher.label"]).focus()
        assert page.evaluate("document.activeElement.id") == "locale-switcher"
    assert page_log.problems(expected_statuses=[401]) == []
