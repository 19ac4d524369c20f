"""The console's "Your account": connections, sessions and the authenticator (wrong code
named, recovery codes)."""

from __future__ import annotations

import re
import time

import pyotp
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.harness.browser import TIMEOUT_MS, PageLog
from tests.harness.callback_app import callback_server
from tests.harness.console import (
    check_screen,
    create_first_admin,
    sign_in,
    wait_for_console,
)
from tests.harness.console_steps import (
    connect_an_application,
    field_error,
    open_screen,
)
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_connections_sessions_and_authenticator(
    stack: Stack, page: Page, page_log: PageLog, browser: Browser, request: pytest.FixtureRequest
) -> None:
    """An application made on the Clients screen and approved on the consent page is
    listed under "Connected applications" with its scopes, and withdrawn there. A second
    browser signs in; the first ends that session on "Sessions" and the second,
    on reload, is back on the hosted sign-in page. Then an authenticator is set up: the QR
    code and the key are shown, a wrong code is named, a code from pyotp confirms it, the
    recovery codes are shown once and the status is "On"."""
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/clients")
    with callback_server() as (callback, _):
        app_name = connect_an_application(page, stack, callback)
        # Connected applications (a page load: the console signs in again without a form):
        # the approved app with what it may do; withdrawn, it is gone.
        page.goto(stack.proxy_url + "/console/account/connections")
        wait_for_console(page)
    card = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=app_name))
    expect(card).to_contain_text("profile")
    check_screen(page, "account-connections", request)
    card.get_by_role("button", name=re.compile(r"^Withdraw access")).click()
    dialog = page.get_by_role("alertdialog", name=f"Withdraw the access of {app_name}?")
    check_screen(page, "account-connections-confirm", request)
    dialog.get_by_role("button", name="Withdraw access").click()
    expect(
        page.get_by_role("status").filter(has_text=f"Access withdrawn from {app_name}.")
    ).to_be_visible()
    expect(card).to_have_count(0)

    other_context = browser.new_context(locale="en-US", viewport={"width": 1024, "height": 768})
    other_context.set_default_timeout(TIMEOUT_MS)
    try:
        other = other_context.new_page()
        sign_in(other, stack, admin)

        open_screen(page, "Sessions")
        rows = page.get_by_role("table", name="Your sessions").locator("tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.filter(has_text="This browser")).to_have_count(1)
        # The application reached in this browser's session is named there.
        expect(rows.filter(has_text="This browser")).to_contain_text(app_name)
        check_screen(page, "account-sessions", request)

        other_row = rows.filter(has_not_text="This browser")
        other_row.get_by_role("button", name=re.compile(r"^End session")).click()
        dialog = page.get_by_role("alertdialog")
        expect(dialog).to_contain_text("End this session?")
        check_screen(page, "account-sessions-confirm", request)
        dialog.get_by_role("button", name="End session").click()
        expect(page.get_by_role("status").filter(has_text="Session ended.")).to_be_visible()
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("This browser")

        other.reload()
        expect(other).to_have_url(re.compile(r"/auth/login\?challenge="))
    finally:
        other_context.close()

    open_screen(page, "Authenticator")
    status = page.get_by_role("region", name="Authenticator app")
    expect(status).to_contain_text(re.compile(r"Status\s*Off"))
    check_screen(page, "account-authenticator", request)
    page.get_by_role("button", name="Set up an authenticator").click()
    qr = page.get_by_role("img", name=re.compile(r"^QR code for .+"))
    expect(qr).to_be_visible()
    expect(qr).to_have_attribute("src", re.compile(r"^data:image/svg\+xml"))
    secret = page.get_by_label("Or type this key into the app").input_value()
    totp = pyotp.TOTP(secret)
    check_screen(page, "account-authenticator-enrol", request)

    code = page.get_by_label("Code from the app")
    code.fill(totp.at(time.time() - 3600))
    page.get_by_role("button", name="Confirm").click()
    field_error(code, "current code")
    code.fill(totp.now())
    page.get_by_role("button", name="Confirm").click()
    dialog = page.get_by_role("dialog", name="Your recovery codes")
    codes = dialog.get_by_role("list", name="Recovery codes").get_by_role("listitem")
    expect(codes).to_have_count(10)
    expect(codes.first).to_have_text(re.compile(r"^\w{5}-\w{5}$"))
    check_screen(page, "account-authenticator-codes", request)
    dialog.get_by_role("button", name="I have saved it").click()
    expect(dialog).to_have_count(0)
    expect(status).to_contain_text(re.compile(r"Status\s*On"))
    expect(status).to_contain_text(re.compile(r"Recovery codes left\s*10"))
    expect(page.get_by_role("status").filter(has_text="The authenticator is on.")).to_be_visible()
    check_screen(page, "account-authenticator-on", request)

    assert page_log.problems(expected_statuses=[422]) == []
