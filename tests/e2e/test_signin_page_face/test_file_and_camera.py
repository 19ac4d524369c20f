"""Face sign-in on the hosted page with a file after a refused camera, and with the camera
before the code step."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode

import pyotp
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_signin_page_face.support import (
    CAMERA_REFUSED,
    SEVERAL_FACES,
    amr_after,
    open_face_step,
    photo_input,
    sign_in_button,
)
from tests.harness import oidc, records
from tests.harness.browser import (
    PageLog,
    assert_inputs_labelled,
)
from tests.harness.faces import FACES, enrol_face
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_person

pytestmark = [pytest.mark.e2e, pytest.mark.face]


def test_file_sign_in_after_a_refused_camera_and_a_group_photo(
    page: Page,
    page_log: PageLog,
    stack: Stack,
    app: records.TestClient,
    enrolled: records.TestUser,
    screenshot: Callable[..., Path],
) -> None:
    """The whole file path: the choice on the password step, the camera refused (no
    permission given), a group photo refused next to the image control, then the person's
    other photo signs in and the ID token says ``face``."""
    authorization = oidc.Authorization(app)
    params = authorization.params("openid")
    params["login_hint"] = enrolled.email
    page.goto(f"{stack.proxy_url}/oauth2/authorize?{urlencode(params)}")
    page.wait_for_url(re.compile(r"/auth/login\?challenge="))
    choice = page.get_by_role("button", name="Sign in with your face")
    expect(choice).to_be_visible()
    screenshot("login-with-face-choice")

    choice.click()
    expect(page.get_by_role("heading", name="Sign in with your face")).to_be_focused()
    expect(page.get_by_label("Email")).to_have_value(enrolled.email)  # from login_hint
    assert_inputs_labelled(page)
    expect(photo_input(page)).to_have_attribute("accept", "image/*")
    expect(photo_input(page)).to_have_attribute("capture", "user")
    screenshot("face-step")

    # No camera permission in this context: the page says so and offers the file.
    page.get_by_role("button", name="Use the camera").click()
    expect(page.get_by_role("status").filter(has_text=CAMERA_REFUSED)).to_be_visible()
    expect(photo_input(page)).to_be_focused()
    expect(page.get_by_role("button", name="Take photo")).to_be_hidden()
    screenshot("face-camera-refused")

    photo_input(page).set_input_files(FACES / "obama_and_biden.jpg")
    expect(page.get_by_role("img", name="The photo to send")).to_be_visible()
    sign_in_button(page).click()
    expect(photo_input(page)).to_have_accessible_description(SEVERAL_FACES)
    expect(photo_input(page)).to_have_attribute("aria-invalid", "true")
    expect(photo_input(page)).to_be_focused()
    expect(page.locator(".field-error:visible")).to_have_text(SEVERAL_FACES)
    screenshot("face-several-faces")

    photo_input(page).set_input_files(FACES / "obama2.jpg")
    expect(page.locator(".field-error:visible")).to_have_count(0)  # a new photo, no old error
    sign_in_button(page).click()
    assert "face" in amr_after(page, stack, authorization)
    assert page_log.problems(expected_statuses=[422]) == []
    assert page_log.csp_violations() == []


def test_camera_photo_then_the_code_step(
    page: Page,
    page_log: PageLog,
    stack: Stack,
    app: records.TestClient,
    screenshot: Callable[..., Path],
) -> None:
    """With the camera allowed: preview, "Take photo", sign in; the person has an
    authenticator, so the code is asked next, as after a password."""
    person = create_person(stack, totp=True)
    assert person.totp_secret is not None
    enrol_face(stack, records.TestUser(person.id, person.email, person.password))
    page.context.grant_permissions(["camera"], origin=stack.proxy_url)
    authorization = oidc.Authorization(app)
    open_face_step(page, stack, authorization)
    page.get_by_label("Email").fill(person.email)

    page.get_by_role("button", name="Use the camera").click()
    take = page.get_by_role("button", name="Take photo")
    expect(take).to_be_focused()
    preview = page.get_by_label("Camera preview")
    expect(preview).to_be_visible()
    page.wait_for_function("document.querySelector('video').videoWidth > 0")
    screenshot("face-camera-live")

    take.click()
    expect(page.get_by_role("img", name="The photo to send")).to_be_visible()
    expect(preview).to_be_hidden()  # the camera is off once the photo is taken
    assert page.evaluate("document.querySelector('video').srcObject === null")
    expect(sign_in_button(page)).to_be_focused()
    screenshot("face-camera-photo")

    page.keyboard.press("Enter")  # the focused "Sign in"
    code = page.get_by_label("One-time code")
    expect(code).to_be_visible()
    code.fill(pyotp.TOTP(person.totp_secret).now())
    page.get_by_role("button", name="Verify").click()
    amr = amr_after(page, stack, authorization)
    assert {"face", "otp", "mfa"} <= set(amr), amr
    assert "pwd" not in amr
    assert page_log.problems() == []
