"""The console in five languages (issue #28, docs/console.md "Languages").

- A person's saved language (``users.ui_locale``, ``PUT /entity/preferences``) wins over
  the browser's ``Accept-Language``; without one the browser's language decides.
- The switcher in the header changes every text at once and saves the choice; a failed
  save says so and keeps the choice for the tab.
- ``ar`` sets ``<html dir="rtl">`` and the navigation sits on the right.
- axe-core finds no serious or critical violation on the profile, a form screen and an
  administration list in each language.

The hosted sign-in page follows the browser's language too (``web/auth``), so these tests
fill it by its field names, not its (translated) labels.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.harness.browser import TIMEOUT_MS, PageLog
from tests.harness.console import (
    Person,
    check_screen,
    create_first_admin,
    settle,
)
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

LOCALES = ("en", "de", "fr", "es", "ar")

#: Texts of the shell each language must show (the navigation's "Sessions" entry and the
#: header's sign-out button), straight from the catalogues the console ships.
SESSIONS = {
    "en": "Sessions",
    "de": "Sitzungen",
    "fr": "Sessions",
    "es": "Sesiones",
    "ar": "الجلسات",
}
SIGN_OUT = {
    "en": "Sign out",
    "de": "Abmelden",
    "fr": "Se déconnecter",
    "es": "Cerrar sesión",
    "ar": "تسجيل الخروج",
}
PROFILE_TITLE = {
    "en": "Profile",
    "de": "Profil",
    "fr": "Profil",
    "es": "Perfil",
    "ar": "الملف الشخصي",
}
LANGUAGE_LABEL = {"en": "Language", "de": "Sprache", "fr": "Langue", "es": "Idioma", "ar": "اللغة"}


@contextmanager
def browser_page(browser: Browser, locale: str, page_log: PageLog) -> Iterator[Page]:
    """A page in a fresh context whose browser sends ``Accept-Language: <locale>``."""
    context = browser.new_context(locale=locale, viewport={"width": 1024, "height": 768})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.on("console", page_log.on_console)
    page.on("pageerror", page_log.on_exception)
    try:
        yield page
    finally:
        context.close()


def sign_in_any_language(page: Page, stack: Stack, person: Person, path: str = "/console/") -> None:
    """Signs in on the hosted page whatever language it speaks (by field names)."""
    page.goto(stack.proxy_url + path)
    expect(page).to_have_url(re.compile(r"/auth/login\?challenge="))
    email = page.locator('input[name="email"]')
    if email.is_editable():
        email.fill(person.email)
    password = page.locator('input[name="password"]')
    password.fill(person.password)
    password.press("Enter")
    wait_for_shell(page)


def wait_for_shell(page: Page) -> None:
    expect(page).to_have_url(re.compile(r"/console/(?!callback)"), timeout=TIMEOUT_MS)
    expect(page.locator("#main-nav")).to_be_attached()
    settle(page)


def expect_language(page: Page, locale: str) -> None:
    """The whole shell speaks ``locale``: ``<html lang>``, navigation, header, heading."""
    expect(page.locator("html")).to_have_attribute("lang", locale)
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if locale == "ar" else "ltr")
    navigation = page.locator("#main-nav")
    expect(navigation.get_by_role("link", name=SESSIONS[locale], exact=True)).to_be_visible()
    expect(page.get_by_role("button", name=SIGN_OUT[locale], exact=True)).to_be_visible()


def switch_language(page: Page, shown_in: str, locale: str) -> dict[str, object]:
    """Chooses ``locale`` in the header's switcher (labelled in ``shown_in``) and answers the
    saved preferences, as ``PUT /entity/preferences`` answered them."""
    switcher = page.get_by_label(LANGUAGE_LABEL[shown_in], exact=True)
    switcher.focus()
    with page.expect_response(
        lambda r: r.url.endswith("/entity/preferences") and r.request.method == "PUT"
    ) as saved:
        switcher.select_option(locale)
    response = saved.value
    assert response.status == 200, response.text()
    answer = response.json()
    assert isinstance(answer, dict)
    return answer


def test_the_saved_language_wins_over_accept_language(
    stack: Stack, browser: Browser, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    """The switcher saves French; a browser asking for German then gets French."""
    person = create_first_admin(stack)
    with browser_page(browser, "en-US", page_log) as page:
        sign_in_any_language(page, stack, person)
        expect_language(page, "en")
        assert switch_language(page, "en", "fr") == {"locale": "fr"}
        # At once, without a reload: shell, screen and document title.
        expect_language(page, "fr")
        expect(page.get_by_role("heading", level=1, name=PROFILE_TITLE["fr"])).to_be_visible()
        expect(page).to_have_title(re.compile(r"^Profil · Console$"))
        # The select keeps focus: a change of language alone does not move it to the heading.
        expect(page.get_by_label(LANGUAGE_LABEL["fr"], exact=True)).to_be_focused()

    with browser_page(browser, "de-DE", page_log) as page:
        assert page.evaluate("navigator.language") == "de-DE"
        sign_in_any_language(page, stack, person, "/console/account/password")
        expect_language(page, "fr")
        expect(page.get_by_role("heading", level=1, name="Mot de passe")).to_be_visible()
        expect(page.get_by_label("Nouveau mot de passe", exact=True)).to_be_visible()
        check_screen(page, "languages-saved-fr", request)
    assert page_log.problems() == []


def test_without_a_saved_language_the_browser_decides(
    stack: Stack, browser: Browser, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    person = create_first_admin(stack)
    with browser_page(browser, "de-DE", page_log) as page:
        sign_in_any_language(page, stack, person)
        expect_language(page, "de")
        expect(page.get_by_role("heading", level=1, name="Profil")).to_be_visible()
        expect(page.get_by_role("navigation", name="Konsole")).to_be_visible()
        # Dates follow the language too (German month names, day before month).
        created = page.locator("dl.facts dt", has_text="Konto erstellt").locator(
            "xpath=following-sibling::dd[1]"
        )
        expect(created).to_have_text(re.compile(r"^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}$"))
        check_screen(page, "languages-browser-de", request)
    assert page_log.problems() == []


def test_a_failed_save_keeps_the_choice_for_the_tab(
    stack: Stack, browser: Browser, page_log: PageLog
) -> None:
    """The provider refusing the save (here: the request never reaches it) leaves the new
    language on screen and says, politely, that it was not saved."""
    person = create_first_admin(stack)
    with browser_page(browser, "en-US", page_log) as page:
        sign_in_any_language(page, stack, person)
        page.route(
            "**/entity/preferences",
            lambda route: route.abort() if route.request.method == "PUT" else route.continue_(),
        )
        page.get_by_label("Language", exact=True).select_option("es")
        expect_language(page, "es")
        expect(
            page.get_by_role("status").filter(has_text="No se ha podido guardar su idioma")
        ).to_be_visible()
        page.unroute("**/entity/preferences")
    # Nothing was stored: a new browser asking for English gets English.
    with browser_page(browser, "en-US", page_log) as page:
        sign_in_any_language(page, stack, person)
        expect_language(page, "en")
    assert [
        p for p in page_log.problems() if "preferences" not in p and "ERR_FAILED" not in p
    ] == []


def test_arabic_mirrors_and_every_language_passes_axe(
    stack: Stack, browser: Browser, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    person = create_first_admin(stack)
    with browser_page(browser, "en-US", page_log) as page:
        sign_in_any_language(page, stack, person)
        shown_in = "en"
        for locale in LOCALES:
            if locale != shown_in:
                assert switch_language(page, shown_in, locale) == {"locale": locale}
                shown_in = locale
            expect_language(page, locale)
            if locale == "ar":
                navigation = page.locator("#main-nav").bounding_box()
                content = page.locator("main#content").bounding_box()
                assert navigation and content
                assert navigation["x"] > content["x"], (navigation, content)
                assert (
                    page.evaluate("getComputedStyle(document.querySelector('#main-nav')).direction")
                    == "rtl"
                )
            for path, name in (
                ("/console/", "profile"),
                ("/console/account/password", "password"),
                ("/console/admin/users", "users"),
            ):
                page.locator(f'#main-nav a[href="{path}"]').click()
                expect(page).to_have_url(re.compile(re.escape(path) + "$"))
                settle(page)
                expect(page.locator("html")).to_have_attribute("lang", locale)
                check_screen(page, f"languages-{locale}-{name}", request)
    assert page_log.problems() == []


def test_the_header_shows_the_providers_brand(
    stack: Stack, browser: Browser, page_log: PageLog
) -> None:
    """The product name (and logo, when set) of ``GET /api/v1/auth/branding``."""
    admin = create_first_admin(stack)
    with browser_page(browser, "en-US", page_log) as page:
        sign_in_any_language(page, stack, admin)
        answer = page.request.get(stack.proxy_url + "/api/v1/auth/branding")
        assert answer.ok, answer.status
        brand = json.loads(answer.text())
        home = page.locator("header .brand")
        if brand["logoUri"]:
            expect(home.get_by_role("img", name=brand["productName"])).to_be_visible()
        else:
            expect(home).to_contain_text(brand["productName"])
        colour = page.evaluate(
            "getComputedStyle(document.documentElement).getPropertyValue('--brand-primary').trim()"
        )
        assert colour == (brand["primaryColor"] or "")
    assert page_log.problems() == []
