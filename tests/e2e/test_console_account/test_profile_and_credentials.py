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
import uuid
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from tests.harness.browser import PageLog
from tests.harness.console import (
    check_screen,
    create_first_admin,
    sign_in,
)
from tests.harness.console_steps import (
    define_field,
    delete_field,
    field_error,
    open_screen,
)
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
    # the picture really loaded (a property read by Playwright's own script: the page's CSP
    # forbids the eval a polled string expression would need)
    expect(photo).to_have_js_property("naturalWidth", 96)
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
