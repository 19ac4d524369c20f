"""Face sign-in refused (another face, an unknown account, no face) and the page without a
camera, worked by keyboard."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_signin_page_face.support import (
    NO_CAMERA,
    NO_FACE,
    WRONG_FACE,
    no_face_png,
    open_face_step,
    photo_input,
    sign_in_button,
)
from tests.harness import oidc, records
from tests.harness.browser import (
    PageLog,
)
from tests.harness.faces import FACES
from tests.harness.stack import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.face]


def test_another_face_an_unknown_account_and_no_face(
    page: Page,
    page_log: PageLog,
    stack: Stack,
    app: records.TestClient,
    enrolled: records.TestUser,
    tmp_path: Path,
    screenshot: Callable[..., Path],
) -> None:
    """Someone else's face and an account that does not exist get one and the same
    message, as a wrong password does; a picture without a face says so next to it."""
    open_face_step(page, stack, oidc.Authorization(app), login_hint=enrolled.email)

    photo_input(page).set_input_files(FACES / "biden1.jpg")
    sign_in_button(page).click()
    alert = page.get_by_role("alert")
    expect(alert).to_have_text(WRONG_FACE)
    expect(alert).to_be_focused()
    expect(page.get_by_label("Email")).to_have_accessible_description(re.compile(WRONG_FACE))
    expect(page.get_by_label("Email")).to_have_value(enrolled.email)
    expect(sign_in_button(page)).to_be_enabled()
    screenshot("face-wrong-face")

    page.get_by_label("Email").fill(f"nobody-{enrolled.id[:8]}@example.com")
    photo_input(page).set_input_files(FACES / "obama2.jpg")
    sign_in_button(page).click()
    expect(alert).to_have_text(WRONG_FACE)

    photo_input(page).set_input_files(no_face_png(tmp_path / "no-face.png"))
    sign_in_button(page).click()
    expect(alert).to_be_hidden()
    expect(photo_input(page)).to_have_accessible_description(NO_FACE)
    expect(photo_input(page)).to_be_focused()
    screenshot("face-no-face")
    assert page_log.problems(expected_statuses=[401, 422]) == []


def test_without_a_camera_the_page_says_so_and_works_by_keyboard(
    page_without_camera: Page,
    page_log: PageLog,
    stack: Stack,
    app: records.TestClient,
    screenshot: Callable[..., Path],
) -> None:
    """No capture device: no camera button, a short note, the file input stays. The step
    is usable by keyboard alone, and going back keeps what was typed."""
    page = page_without_camera
    page.set_viewport_size({"width": 375, "height": 740})  # a phone
    open_face_step(page, stack, oidc.Authorization(app))
    expect(page.get_by_text(NO_CAMERA)).to_be_visible()
    expect(page.get_by_role("button", name="Use the camera")).to_have_count(0)
    expect(photo_input(page)).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, "the page scrolls sideways on a phone"
    screenshot("face-no-camera-phone", page)

    page.keyboard.press("Tab")
    expect(page.get_by_label("Email")).to_be_focused()
    page.keyboard.type("someone@example.com")
    page.keyboard.press("Tab")
    expect(photo_input(page)).to_be_focused()
    page.keyboard.press("Tab")
    expect(sign_in_button(page)).to_be_focused()
    page.keyboard.press("Enter")  # no photo yet: said next to the image control
    expect(photo_input(page)).to_be_focused()
    expect(photo_input(page)).to_have_accessible_description(
        re.compile("Take a photo with the camera or choose one")
    )

    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    back = page.get_by_role("button", name="Use your password instead")
    expect(back).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Sign in", exact=True)).to_be_focused()
    expect(page.get_by_label("Email")).to_have_value("someone@example.com")
    expect(page.get_by_role("button", name="Sign in with your face")).to_be_visible()
    assert page_log.problems() == []
