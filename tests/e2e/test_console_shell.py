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
    for entry in ("Profile", "Password", "Sessions", "APIs and scopes", "Clients", "Users", "Audit log"):
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
    assert page_log.problems() == []
