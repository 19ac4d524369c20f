"""The console's "Your account": face enrolment (marker ``face``)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.harness.browser import PageLog
from tests.harness.console import (
    check_screen,
    create_first_admin,
    fill_sign_in_page,
    sign_in,
    wait_for_console,
)
from tests.harness.console_steps import (
    confirm_user_action,
    field_error,
    open_user,
)
from tests.harness.faces import FACES
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


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

    # Removing a credential was a credential change: the session it was removed from goes
    # on, but enrolling again needs a sign-in after it. The hosted page asks for the
    # password and brings the person back to this screen, where enrolling works.
    page.get_by_label("Photo of your face").set_input_files(FACES / "obama1.jpg")
    page.get_by_role("button", name="Enrol face").click()
    fill_sign_in_page(page, admin)
    wait_for_console(page)
    expect(page).to_have_url(re.compile(r"/console/account/face$"))
    page.get_by_label("Photo of your face").set_input_files(FACES / "obama1.jpg")
    page.get_by_role("button", name="Enrol face").click()
    expect(panel).to_contain_text(re.compile(r"Status\s*On"))
    # Then removed on the administrator's screen of a person, here their own: as on the
    # account screen, the session they did it from goes on (their others would end).
    open_user(page, admin.email)
    confirm_user_action(page, "Remove face sign-in", "Face sign-in removed.")
    page.goto(stack.proxy_url + "/console/account/face")
    wait_for_console(page)
    expect(page.get_by_role("region", name="Your face")).to_contain_text(
        re.compile(r"Status\s*Off")
    )

    assert page_log.problems(expected_statuses=[401, 403, 422]) == []
