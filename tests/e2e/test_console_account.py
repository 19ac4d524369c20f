"""The console's self-service screens, "Your account" (issue 8, acceptance 2 and 5), in real
Chromium through the proxy: profile (typed fields defined on the Profile fields screen, a
read-only one, display name, a refused value next to its field, photo upload and removal),
email change, password form checks, my permissions, connected applications (an app
approved on the consent page, then withdrawn), sessions (ending another browser's session
signs it out), the authenticator (enrolled with a code from pyotp, recovery codes shown
once) and face enrolment.

Only the first administrator is created outside the browser; every other change is made
on the screens. ``check_screen`` saves a screenshot and runs axe-core on every screen.
"""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

import pyotp
import pytest
from PIL import Image
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
    confirm_user_action,
    connect_an_application,
    define_field,
    delete_field,
    field_error,
    open_screen,
    open_user,
)
from tests.harness.faces import FACES
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_profile_photo_email_password_permissions_and_connections(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Profile fields defined on the administration screen show as typed inputs (a writable
    integer with its bounds, a read-only one); a value out of range is refused at its field
    and one in range saved. The profile saves a changed display name and shows a refused
    username next to its field; a photo uploads, shows and is removed; the email changes
    with the current password (a wrong one is named); the password form compares the two
    new passwords before sending; the permissions list the default self-service scopes; a
    phone shows the navigation behind "Menu"."""
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/profile-fields")
    suffix = uuid.uuid4().hex[:6]
    shoe, badge = f"shoe_size_{suffix}", f"badge_{suffix}"
    define_field(page, shoe, f"Shoe size {suffix}", "integer", writable=True, bounds=("20", "50"))
    define_field(page, badge, f"Badge {suffix}", "string", writable=False)

    open_screen(page, "Profile")
    expect(page.get_by_role("heading", name="Profile", level=1)).to_be_visible()
    check_screen(page, "account-profile", request)

    # A writable integer field: a number input with its bounds as a hint; the API's 422
    # is shown at the field; a value in range is saved. A read-only field cannot be typed in.
    shoe_input = page.get_by_label(f"Shoe size {suffix}")
    expect(shoe_input).to_have_attribute("type", "number")
    expect(shoe_input).to_have_accessible_description(re.compile("From 20 to 50"))
    badge_input = page.get_by_label(f"Badge {suffix}")
    expect(badge_input).not_to_be_editable()
    expect(badge_input).to_have_accessible_description(
        re.compile("Your administrator manages this value")
    )
    shoe_input.press_sequentially("4e")  # not a number: the browser reads it as ""
    page.get_by_role("button", name="Save profile").click()
    field_error(shoe_input, "Enter a whole number")
    shoe_input.fill("51")
    page.get_by_role("button", name="Save profile").click()
    field_error(shoe_input, "must be at most 50")
    shoe_input.fill("42")
    page.get_by_role("button", name="Save profile").click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()

    # Display name: saved, and still there after moving away and back.
    page.get_by_label("Display name").fill("Ada Console")
    page.get_by_role("button", name="Save profile").click()
    expect(page.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    open_screen(page, "Email")
    open_screen(page, "Profile")
    expect(page.get_by_label("Display name")).to_have_value("Ada Console")
    expect(page.get_by_label(f"Shoe size {suffix}")).to_have_value("42")

    # A username with a space: the API's 422 next to the field, the summary as an alert.
    username = page.get_by_label("Username")
    username.fill("two words")
    page.get_by_role("button", name="Save profile").click()
    expect(page.get_by_role("alert")).to_contain_text("without spaces")
    field_error(username, "without spaces")
    check_screen(page, "account-profile-error", request)
    username.fill("")

    # Photo: upload a PNG, see it (loaded from the same origin under the CSP), remove it.
    png = tmp_path / "me.png"
    Image.new("RGB", (96, 96), (40, 110, 180)).save(png)
    page.get_by_label("New photo").set_input_files(png)
    page.get_by_role("button", name="Upload photo").click()
    expect(page.get_by_role("status").filter(has_text="Photo saved.")).to_be_visible()
    photo = page.get_by_role("img", name="Your photo")
    expect(photo).to_be_visible()
    expect(photo).to_have_attribute("src", re.compile(r"/media/avatars/[0-9a-f]{32}\.png$"))
    page.wait_for_function("document.querySelector('img.photo')?.naturalWidth === 96")
    check_screen(page, "account-profile-photo", request)
    page.get_by_role("button", name="Remove photo").click()
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("Remove your photo?")
    dialog.get_by_role("button", name="Remove photo").click()
    expect(page.get_by_role("status").filter(has_text="Photo removed.")).to_be_visible()
    expect(page.get_by_text("No photo yet.")).to_be_visible()
    expect(photo).to_have_count(0)

    # My permissions: the self-service scopes every person holds, and the admin's.
    open_screen(page, "My permissions")
    account_read = page.get_by_role("row").filter(
        has=page.get_by_role("rowheader", name="idp:account:read")
    )
    expect(account_read).to_contain_text("Every person has it")
    users_read = page.get_by_role("row").filter(
        has=page.get_by_role("rowheader", name="idp:users:read")
    )
    expect(users_read).to_contain_text("Through your role")
    check_screen(page, "account-permissions", request)

    open_screen(page, "Connected applications")
    expect(page.get_by_text("No application has access to your account.")).to_be_visible()
    check_screen(page, "account-connections-empty", request)

    # Email: a wrong current password is named; the right one changes the address.
    open_screen(page, "Email")
    new_email = admin.email.replace("admin-", "renamed-")
    page.get_by_label("New email address").fill(new_email)
    password = page.get_by_label("Current password")
    password.fill("not the password at all")
    page.get_by_role("button", name="Change email").click()
    field_error(password, r"\S")
    check_screen(page, "account-email-error", request)
    password.fill(admin.password)
    page.get_by_role("button", name="Change email").click()
    expect(page.get_by_role("status").filter(has_text=f"is now {new_email}")).to_be_visible()
    current = page.get_by_role("region", name="Current address")
    expect(current).to_contain_text(new_email)
    expect(current).to_contain_text("not verified")
    check_screen(page, "account-email", request)

    # Password: the two new passwords are compared before anything is sent.
    open_screen(page, "Password")
    page.get_by_label("Current password").fill(admin.password)
    page.get_by_label("New password", exact=True).fill("a new passphrase of mine")
    again = page.get_by_label("New password again")
    again.fill("a different passphrase")
    page.get_by_role("button", name="Change password").click()
    field_error(again, "not the same")
    check_screen(page, "account-password-error", request)

    # A phone: the navigation opens from "Menu"; the profile is one column.
    page.set_viewport_size({"width": 390, "height": 844})
    nav = page.get_by_role("navigation", name="Console")
    expect(nav).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    nav.get_by_role("link", name="Profile", exact=True).click()
    expect(nav).to_be_hidden()
    expect(page.get_by_label("Display name")).to_have_value("Ada Console")
    check_screen(page, "account-phone-profile", request)

    # The two fields go again, so other tests' profiles do not show them.
    page.set_viewport_size({"width": 1024, "height": 768})
    for label in (f"Shoe size {suffix}", f"Badge {suffix}"):
        delete_field(page, label)

    assert page_log.problems(expected_statuses=[422]) == []


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


@pytest.mark.face
def test_face_enrolment(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    """A photo with several faces is refused with the API's sentence next to the file input;
    one face enrols ("On"); removing it turns it off again, from the person's own screen and
    from the administrator's screen of the person."""
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/account/face")
    expect(page.get_by_role("heading", name="Face sign-in", level=1)).to_be_visible()
    panel = page.get_by_role("region", name="Your face")
    expect(panel).to_contain_text(re.compile(r"Status\s*Off"))
    check_screen(page, "account-face", request)

    photo = page.get_by_label("Photo of your face")
    photo.set_input_files(FACES / "obama_and_biden.jpg")
    page.get_by_role("button", name="Enrol face").click()
    field_error(photo, "faces were found")
    check_screen(page, "account-face-error", request)

    page.get_by_label("Photo of your face").set_input_files(FACES / "obama1.jpg")
    page.get_by_role("button", name="Enrol face").click()
    expect(page.get_by_role("status").filter(has_text="Your face is enrolled")).to_be_visible()
    expect(panel).to_contain_text(re.compile(r"Status\s*On"))
    check_screen(page, "account-face-on", request)

    page.get_by_role("button", name="Remove face").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Remove face").click()
    expect(page.get_by_role("status").filter(has_text="Your face was removed.")).to_be_visible()
    expect(panel).to_contain_text(re.compile(r"Status\s*Off"))

    # Enrolled again, then removed by an administrator on the person's screen (here, their own).
    page.get_by_label("Photo of your face").set_input_files(FACES / "obama1.jpg")
    page.get_by_role("button", name="Enrol face").click()
    expect(panel).to_contain_text(re.compile(r"Status\s*On"))
    open_user(page, admin.email)
    confirm_user_action(page, "Remove face sign-in", "Face sign-in removed.")
    open_screen(page, "Face sign-in")
    expect(page.get_by_role("region", name="Your face")).to_contain_text(
        re.compile(r"Status\s*Off")
    )

    assert page_log.problems(expected_statuses=[422]) == []
