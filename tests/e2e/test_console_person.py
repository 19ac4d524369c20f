"""Issue 8 acceptance 2, in real Chromium through the proxy: a person who is not an
administrator uses the console.

The first administrator (made with the operator tool, the only state set up outside the
browser) prepares on the console's own screens: a profile field the person may change, one
only administrators may change (with a value for the person), an application, and the
person's account. The person then signs in and, through the browser only:

- sees only the self-service screens (no administration entry; an administration address
  says "Not available");
- edits the writable field, while the other one is read-only and shows the value given;
- ends the session of a second browser (which is signed out on reload);
- approves the application on the consent page and withdraws it again;
- sets up an authenticator with a code computed by pyotp.

The administrator then clears that authenticator (the person's screen says Off) and
removes the password (the person is signed out and the old password no longer signs in).

Every screen is checked with axe-core and saved as a screenshot.
"""

from __future__ import annotations

import re
import uuid

import pyotp
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.harness.browser import TIMEOUT_MS, PageLog
from tests.harness.callback_app import callback_server
from tests.harness.console import (
    check_screen,
    create_first_admin,
    fill_sign_in_page,
    new_person,
    sign_in,
    wait_for_console,
)
from tests.harness.console_steps import (
    approve_client,
    confirm_user_action,
    create_client,
    create_user,
    define_field,
    field_error,
    open_screen,
    open_user,
)
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e
SIGN_IN_PAGE = re.compile(r"/auth/login\?challenge=")
WRONG_CREDENTIALS = "Email or password is incorrect"


def test_a_person_who_is_not_an_administrator_manages_their_own_account(
    stack: Stack, page: Page, page_log: PageLog, browser: Browser, request: pytest.FixtureRequest
) -> None:
    suffix = uuid.uuid4().hex[:6]
    team, staff_no = f"Team {suffix}", f"Staff number {suffix}"
    person = new_person("person")

    # --- the administrator prepares, in a browser of their own ---------------------------
    admin_context = browser.new_context(locale="en-US", viewport={"width": 1024, "height": 768})
    admin_context.set_default_timeout(TIMEOUT_MS)
    with callback_server() as (callback, arrivals):
        try:
            admin_page = admin_context.new_page()
            admin = create_first_admin(stack)
            sign_in(admin_page, stack, admin)
            define_field(admin_page, f"team_{suffix}", team, "string", writable=True)
            define_field(admin_page, f"staff_no_{suffix}", staff_no, "string", writable=False)
            app_name, client_id = create_client(admin_page, callback)
            create_user(admin_page, person, "Pat Person")
            admin_page.get_by_role("link", name=person.email).first.click()
            values = admin_page.get_by_role("form", name="Profile values")
            values.get_by_label(staff_no).fill("S-1234")
            values.get_by_role("button", name="Save profile values").click()
            expect(values.get_by_role("status")).to_have_text("Saved.")
        finally:
            admin_context.close()

        # --- the person: only the self-service screens --------------------------------------
        sign_in(page, stack, person)
        nav = page.get_by_role("navigation", name="Console")
        expect(nav.get_by_role("heading", name="Your account")).to_be_visible()
        expect(nav.get_by_role("heading", name="Administration")).to_have_count(0)
        for entry in ("Users", "Clients", "APIs and scopes", "Audit log", "Profile fields"):
            expect(nav.get_by_role("link", name=entry, exact=True)).to_have_count(0)
        expect(page.get_by_role("button", name="Sign out")).to_be_visible()
        check_screen(page, "person-profile", request)

        # The writable field is edited; the administrator's field is read-only with its value.
        team_input = page.get_by_label(team)
        staff_input = page.get_by_label(staff_no)
        expect(staff_input).to_have_value("S-1234")
        expect(staff_input).not_to_be_editable()
        team_input.fill("Platform")
        page.get_by_role("button", name="Save profile").click()
        expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
        open_screen(page, "My permissions")
        check_screen(page, "person-permissions", request)
        open_screen(page, "Profile")
        expect(page.get_by_label(team)).to_have_value("Platform")
        expect(page.get_by_label(staff_no)).to_have_value("S-1234")

        # An administration address typed in: not available to this person.
        page.goto(stack.proxy_url + "/console/admin/users")
        wait_for_console(page)
        expect(page.get_by_role("heading", level=1, name="Not available")).to_be_visible()
        check_screen(page, "person-not-available", request)

        # --- another browser of the person's, ended from this one ---------------------------
        other_context = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844})
        other_context.set_default_timeout(TIMEOUT_MS)
        try:
            other = other_context.new_page()
            sign_in(other, stack, person)
            open_screen(page, "Sessions")
            rows = page.get_by_role("table", name="Your sessions").locator("tbody tr")
            expect(rows).to_have_count(2)
            check_screen(page, "person-sessions", request)
            rows.filter(has_not_text="This browser").get_by_role(
                "button", name=re.compile(r"^End session")
            ).click()
            page.get_by_role("alertdialog").get_by_role("button", name="End session").click()
            expect(page.get_by_role("status").filter(has_text="Session ended.")).to_be_visible()
            expect(rows).to_have_count(1)
            other.reload()
            expect(other).to_have_url(SIGN_IN_PAGE)
        finally:
            other_context.close()

        # --- a connection: approved on the consent page, withdrawn in the console ----------
        approve_client(page, stack, client_id, app_name, callback)
        assert any(path.startswith("/cb?code=") for path in arrivals)
        page.goto(stack.proxy_url + "/console/account/connections")
        wait_for_console(page)
    card = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=app_name))
    expect(card).to_contain_text("profile")
    check_screen(page, "person-connections", request)
    card.get_by_role("button", name=re.compile(r"^Withdraw access")).click()
    page.get_by_role("alertdialog").get_by_role("button", name="Withdraw access").click()
    expect(
        page.get_by_role("status").filter(has_text=f"Access withdrawn from {app_name}.")
    ).to_be_visible()
    expect(card).to_have_count(0)
    page.reload()  # the provider forgot it: not listed after a fresh load either
    wait_for_console(page)
    expect(page.get_by_role("heading", name=app_name)).to_have_count(0)

    # --- an authenticator, confirmed with a code from pyotp -----------------------------
    open_screen(page, "Authenticator")
    page.get_by_role("button", name="Set up an authenticator").click()
    secret = page.get_by_label("Or type this key into the app").input_value()
    check_screen(page, "person-authenticator-enrol", request)
    code = page.get_by_label("Code from the app")
    code.fill("000000" if pyotp.TOTP(secret).now() != "000000" else "111111")
    page.get_by_role("button", name="Confirm").click()
    field_error(code, "current code")
    code.fill(pyotp.TOTP(secret).now())
    page.get_by_role("button", name="Confirm").click()
    codes = page.get_by_role("dialog", name="Your recovery codes")
    expect(codes.get_by_role("listitem")).to_have_count(10)
    codes.get_by_role("button", name="I have saved it").click()
    status = page.get_by_role("region", name="Authenticator app")
    expect(status).to_contain_text(re.compile(r"Status\s*On"))
    check_screen(page, "person-authenticator-on", request)

    # --- the administrator clears the authenticator, then removes the password ----------
    admin_context = browser.new_context(locale="en-US", viewport={"width": 1024, "height": 768})
    admin_context.set_default_timeout(TIMEOUT_MS)
    try:
        admin_page = admin_context.new_page()
        sign_in(admin_page, stack, admin)
        open_user(admin_page, person.email)
        confirm_user_action(admin_page, "Clear the authenticator", "Authenticator cleared")
        # clearing it ended the person's sessions: the console sends them to sign in again,
        # with the password alone now, and comes back to the same screen
        page.reload()
        fill_sign_in_page(page, person)
        wait_for_console(page)
        expect(status).to_contain_text(re.compile(r"Status\s*Off"))
        expect(page.get_by_role("button", name="Set up an authenticator")).to_be_visible()

        confirm_user_action(admin_page, "Remove the password", "Password removed.")
    finally:
        admin_context.close()
    page.reload()  # removing the password ended the person's sessions
    expect(page).to_have_url(SIGN_IN_PAGE)
    page.get_by_label("Email").fill(person.email)
    page.get_by_label("Password", exact=True).fill(person.password)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("alert")).to_have_text(WRONG_CREDENTIALS)

    assert page_log.problems(expected_statuses=[401, 422]) == []
