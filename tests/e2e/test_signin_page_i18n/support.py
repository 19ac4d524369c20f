"""Helpers of the sign-in page's language and brand tests (issue #28): pages in a browser
context of a given language, the way to a screen, the throttle tripped for real."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Browser, Locator, Page, expect

from tests.harness import oidc
from tests.harness.browser import _CSP_LISTENER, TIMEOUT_MS, PageLog
from tests.harness.stack import Stack

ROOT = Path(__file__).resolve().parents[3]
DIST = ROOT / "web/auth/dist/index.html"
LOCALES = ("en", "de", "fr", "es", "ar")
LOGIN_URL = re.compile(r"/auth/login\?challenge=[A-Za-z0-9_-]+")


@contextmanager
def language_page(browser: Browser, page_log: PageLog, locale: str = "en-US") -> Iterator[Page]:
    """A page in a new context whose browser language (Accept-Language,
    ``navigator.languages``) is ``locale``; console errors and CSP violations go to
    ``page_log``."""
    context = browser.new_context(locale=locale, viewport={"width": 1024, "height": 768})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(_CSP_LISTENER)
    page = context.new_page()
    page.on("console", page_log.on_console)
    page.on("pageerror", page_log.on_exception)
    try:
        yield page
    finally:
        context.close()


def start_sign_in(
    page: Page,
    stack: Stack,
    authorization: oidc.Authorization,
    *,
    scope: str = "openid profile",
    **extra: str,
) -> None:
    """From ``/oauth2/authorize`` (with ``extra`` parameters such as ``ui_locales``) to the
    sign-in page's first screen."""
    params = {**authorization.params(scope), **extra}
    page.goto(f"{stack.proxy_url}/oauth2/authorize?{urlencode(params)}")
    page.wait_for_url(LOGIN_URL)
    expect(page.locator("h1")).to_be_focused()


def html_attributes(page: Page) -> tuple[str, str]:
    lang, direction = page.evaluate("[document.documentElement.lang, document.documentElement.dir]")
    return str(lang), str(direction)


def submit_password(page: Page, labels: tuple[str, str, str], email: str, password: str) -> None:
    """Fills the password step whose email label, password label and button are
    ``labels`` (in the page's language) and submits it."""
    email_label, password_label, button = labels
    page.get_by_label(email_label, exact=True).fill(email)
    page.get_by_label(password_label, exact=True).fill(password)
    page.get_by_role("button", name=button, exact=True).click()


def alert(page: Page) -> Locator:
    return page.get_by_role("alert")
