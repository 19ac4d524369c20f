"""Arabic mirrors the page (``<html dir="rtl">``, the layout from the right), and the
language switcher: a labelled ``<select>`` in the footer that changes the language at once,
keeps what was typed, is remembered for the tab and then wins over the server's choice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FloatRect, Locator, Page, expect

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

pytestmark = pytest.mark.e2e

ARABIC_LOGIN = ("البريد الإلكتروني", "كلمة المرور", "تسجيل الدخول")


def box(locator: Locator) -> FloatRect:
    found = locator.bounding_box()
    assert found is not None
    return found


def centre(locator: Locator) -> float:
    found = box(locator)
    return found["x"] + found["width"] / 2


def style(page: Page, selector: str, prop: str) -> str:
    return str(
        page.evaluate(
            "([s, p]) => getComputedStyle(document.querySelector(s)).getPropertyValue(p)",
            [selector, prop],
        )
    )


def test_arabic_mirrors_the_page(
    browser: Browser,
    page_log: PageLog,
    stack: Stack,
    first_party: records.TestClient,
    screenshot: Callable[..., Path],
) -> None:
    """Labels sit at the right-hand side of the card, the error's bar on its right edge,
    the switcher at the left; in English the same page reads from the left."""
    person = records.create_user(stack)
    with language_page(browser, page_log, "en-US") as page:
        start_sign_in(page, stack, oidc.Authorization(first_party), scope="openid", ui_locales="ar")
        assert html_attributes(page) == ("ar", "rtl")
        expect(page.get_by_role("heading", name="تسجيل الدخول", exact=True)).to_be_focused()
        card = page.locator("#app")
        label = page.locator("label", has_text="البريد الإلكتروني")
        card_box, label_box = box(card), box(label)
        assert centre(label) > card_box["x"] + card_box["width"] / 2, (label_box, card_box)
        # The label ends where the card's content ends (its padding), on the right.
        assert card_box["x"] + card_box["width"] - (label_box["x"] + label_box["width"]) < 40
        switcher = page.get_by_label("اللغة")
        assert centre(switcher) < card_box["x"] + card_box["width"] / 2

        submit_password(page, ARABIC_LOGIN, person.email, "not the password")
        expect(alert(page)).to_have_text("البريد الإلكتروني أو كلمة المرور غير صحيحة")
        assert style(page, ".error-summary", "border-right-width") == "4px"
        assert style(page, ".error-summary", "border-left-width") == "0px"
        screenshot("ar-wrong-password", page)

        switcher.select_option("en")
        assert html_attributes(page) == ("en", "ltr")
        label = page.locator("label", has_text="Email")
        assert centre(label) < card_box["x"] + card_box["width"] / 2
        assert style(page, ".field label", "text-align") in {"start", "left"}
    assert page_log.problems(expected_statuses=[401]) == []


def test_the_switcher_changes_the_language_at_once_and_is_remembered(
    browser: Browser,
    page_log: PageLog,
    stack: Stack,
    first_party: records.TestClient,
    screenshot: Callable[..., Path],
) -> None:
    with language_page(browser, page_log, "en-US") as page:
        page.goto(f"{stack.proxy_url}/auth/reset")
        expect(page.get_by_role("heading", name="Reset your password")).to_be_focused()
        assert html_attributes(page) == ("en", "ltr")
        page.get_by_label("Email").fill("someone@example.com")

        # Reached with the keyboard: Tab from the form's button lands on the switcher.
        page.get_by_role("button", name="Send link").focus()
        page.keyboard.press("Tab")
        switcher = page.get_by_label("Language")
        expect(switcher).to_be_focused()
        expect(switcher.locator("option")).to_have_text(
            ["English", "Deutsch", "Français", "Español", "العربية"]
        )
        switcher.select_option("de")
        expect(page.get_by_role("heading", name="Passwort zurücksetzen")).to_be_visible()
        assert html_attributes(page) == ("de", "ltr")
        assert page.title() == "Passwort zurücksetzen"
        expect(page.get_by_label("E-Mail")).to_have_value("someone@example.com")
        expect(page.get_by_label("Sprache")).to_be_focused()  # focus stays with the person
        screenshot("switched-to-german", page)

        page.reload()
        expect(page.get_by_role("heading", name="Passwort zurücksetzen")).to_be_focused()

        # The tab's choice wins over the application's ui_locales.
        start_sign_in(page, stack, oidc.Authorization(first_party), scope="openid", ui_locales="fr")
        expect(page.get_by_role("heading", name="Anmelden", exact=True)).to_be_focused()
        assert html_attributes(page) == ("de", "ltr")
        page.get_by_label("Sprache").select_option("fr")
        expect(page.get_by_role("heading", name="Se connecter", exact=True)).to_be_visible()
        expect(page.get_by_label("Mot de passe", exact=True)).to_be_visible()

        # Another tab has its own choice: there the browser's language (English) holds.
        other = page.context.new_page()
        other.goto(f"{stack.proxy_url}/auth/logged-out")
        expect(other.get_by_role("heading", name="You are signed out")).to_be_visible()
        other.close()
    assert page_log.problems() == []
