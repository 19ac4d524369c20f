"""The console for an administrator who may read but not write (issue 8: "Administration
screens shown only to holders of the scopes"). The first administrator gives a person the
direct scopes ``idp:users:read`` and ``idp:clients:read`` on the Users screen; that person
then sees only those two administration screens, with no control that writes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.harness.browser import TIMEOUT_MS, PageLog
from tests.harness.console import check_screen, create_first_admin, find_row, new_person, sign_in
from tests.harness.console_steps import create_user, open_screen
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e
READ_ONLY = ("idp:users:read", "idp:clients:read")


def test_read_scopes_show_their_screens_without_any_write_control(
    stack: Stack, page: Page, page_log: PageLog, browser: Browser, request: pytest.FixtureRequest
) -> None:
    reader = new_person("reader")
    admin_context = browser.new_context(locale="en-US", viewport={"width": 1024, "height": 768})
    admin_context.set_default_timeout(TIMEOUT_MS)
    try:
        admin_page = admin_context.new_page()
        sign_in(admin_page, stack, create_first_admin(stack))
        create_user(admin_page, reader, "Read Only")
        admin_page.get_by_role("link", name=reader.email).first.click()
        direct = admin_page.get_by_role("form", name="Direct scopes")
        for scope in READ_ONLY:
            direct.get_by_role("checkbox", name=scope, exact=True).check()
        direct.get_by_role("button", name="Save direct scopes").click()
        saved = admin_page.get_by_role("status").filter(has_text="Direct scopes saved.")
        expect(saved).to_be_visible()
    finally:
        admin_context.close()

    sign_in(page, stack, reader)
    nav = page.get_by_role("navigation", name="Console")
    expect(nav.get_by_role("heading", name="Administration")).to_be_visible()
    for entry in ("Users", "Clients"):
        expect(nav.get_by_role("link", name=entry, exact=True)).to_be_visible()
    for entry in ("APIs and scopes", "Groups", "Roles", "Profile fields", "Audit log"):
        expect(nav.get_by_role("link", name=entry, exact=True)).to_have_count(0)

    open_screen(page, "Users")
    reader_row = find_row(page, "User list", reader.email)
    expect(reader_row.get_by_role("link", name=reader.email)).to_be_visible()
    expect(page.get_by_role("button", name="New user")).to_have_count(0)
    check_screen(page, "read-only-users", request)
    reader_row.get_by_role("link", name=reader.email).first.click()
    expect(page.get_by_role("heading", level=1, name="Read Only")).to_be_visible()
    for control in ("Save details", "Delete user", "End all sessions", "Set password"):
        expect(page.get_by_role("button", name=control)).to_have_count(0)
    expect(page.get_by_role("form", name="Direct scopes")).to_have_count(0)
    effective = page.get_by_role("region", name="Effective scopes").last
    expect(effective).to_contain_text("idp:users:read")
    check_screen(page, "read-only-user-detail", request)

    open_screen(page, "Clients")
    console = find_row(page, "Clients", "Console", link=True)
    expect(console.get_by_role("link", name="Console", exact=True)).to_be_visible()
    expect(page.get_by_role("form", name="New client")).to_have_count(0)
    check_screen(page, "read-only-clients", request)
    assert page_log.problems() == []
