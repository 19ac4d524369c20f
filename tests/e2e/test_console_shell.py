"""The console's frame (issue 8): signing in through the hosted page as the public client
``console`` with PKCE, the navigation by scope, sign-out, and a page reload signing in
again without a form (tokens live in memory only)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.harness.browser import PageLog
from tests.harness.console import check_screen, create_first_admin, sign_in, wait_for_console
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_the_administrator_signs_in_and_sees_both_sections(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    admin = create_first_admin(stack)
    sign_in(page, stack, admin)
    nav = page.get_by_role("navigation", name="Console")
    entries = ("Profile", "Password", "Sessions", "APIs and scopes", "Clients", "Users")
    for entry in entries:
        expect(nav.get_by_role("link", name=entry, exact=True)).to_be_visible()
    check_screen(page, "shell-profile", request)

    # Nothing of the sign-in is left in storage, and a reload signs in again silently.
    stored = page.evaluate("JSON.stringify([localStorage, sessionStorage, document.cookie])")
    assert "ey" not in stored, stored
    page.reload()
    wait_for_console(page)
    expect(page.get_by_role("heading", level=1)).to_be_visible()

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="You are signed out")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/console/$"))
    check_screen(page, "shell-signed-out", request)
    assert page_log.problems() == []


def test_the_keyboard_alone_moves_through_the_console_and_its_dialogs(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    """Skip link, navigation links and a confirmation dialog with the keyboard only (focus
    moves into the dialog, Escape closes it and focus returns to its button); the "Page not
    found" screen passes axe too."""
    admin = create_first_admin(stack)
    sign_in(page, stack, admin)
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("main#content")).to_be_focused()

    nav_link = page.get_by_role("navigation", name="Console").get_by_role(
        "link", name="APIs and scopes", exact=True
    )
    nav_link.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1, name="APIs and scopes")).to_be_focused()
    page.get_by_role("link", name="idp", exact=True).focus()
    page.keyboard.press("Enter")
    delete = page.get_by_role("button", name="Delete API")
    delete.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("alertdialog", name="Delete the API idp?")
    expect(dialog).to_be_visible()
    assert page.evaluate("document.activeElement.closest('[role=alertdialog]') !== null")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(delete).to_be_focused()

    # A callback the console did not start (no matching state) is refused, not exchanged.
    page.goto(stack.proxy_url + "/console/callback?code=forged&state=forged")
    expect(page.get_by_role("heading", level=1, name="Sign-in failed")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("not started here")
    check_screen(page, "shell-sign-in-failed", request)

    page.goto(stack.proxy_url + "/console/no-such-screen")
    wait_for_console(page)
    expect(page.get_by_role("heading", level=1, name="Page not found")).to_be_visible()
    check_screen(page, "shell-not-found", request)
    assert page_log.problems() == []
