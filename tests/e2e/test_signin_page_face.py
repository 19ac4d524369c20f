"""'Sign in with your face' on the hosted sign-in page (issue 7, "What to build", last
bullet) in real headless Chromium, through the real proxy, against the real sign-in API and
face engine.

Each person enrols a face as the self-service API expects (``PUT /entity/face`` with a
token of theirs, obama1.jpg) and signs in on the page with another photo of the same person
(obama2.jpg): through the file input, and through the camera. The camera is Chromium's fake
capture device filming obama2.jpg (converted to a Y4M video); a page without the camera
permission sees it refused, a browser without that device sees no camera at all. A group
photo shows the several-faces message, a picture without a face the no-face message, and
another person's face the same message as a wrong password.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlencode

import pyotp
import pytest
from PIL import Image
from playwright.sync_api import Browser, Locator, Page, Playwright, expect, sync_playwright

from tests.harness import oidc, records
from tests.harness.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    PageLog,
    assert_inputs_labelled,
)
from tests.harness.callback_app import callback_server
from tests.harness.faces import FACES, enrol_face
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_person

pytestmark = [pytest.mark.e2e, pytest.mark.face]

DIST = Path(__file__).resolve().parents[2] / "web/auth/dist/index.html"
WRONG_FACE = "Email or face is incorrect"
SEVERAL_FACES = re.compile(r"\d+ faces were found")
NO_FACE = re.compile(r"No face was found")
CAMERA_REFUSED = "Camera access was refused"
NO_CAMERA = "No camera was found"


@pytest.fixture(autouse=True)
def _built_page() -> None:
    if not DIST.is_file():
        pytest.fail("web/auth is not built: cd web/auth && npm ci && npm run build")


# --- the browsers: one with a fake camera filming obama2.jpg, one without any camera -----


def write_y4m(photo: Path, target: Path) -> Path:
    """``photo`` as a two-frame Y4M video (4:2:0, studio range): Chromium's fake camera
    plays it in a loop."""
    image = Image.open(photo).convert("RGB")
    image = image.crop((0, 0, image.width - image.width % 2, image.height - image.height % 2))
    luma, blue, red = image.convert("YCbCr").split()
    half = (image.width // 2, image.height // 2)
    planes = [
        luma.point(lambda v: 16 + v * 219 // 255),
        blue.resize(half, Image.Resampling.BILINEAR).point(lambda v: 16 + v * 224 // 255),
        red.resize(half, Image.Resampling.BILINEAR).point(lambda v: 16 + v * 224 // 255),
    ]
    frame = b"FRAME\n" + b"".join(plane.tobytes() for plane in planes)
    header = f"YUV4MPEG2 W{image.width} H{image.height} F30:1 Ip A1:1 C420jpeg\n".encode()
    target.write_bytes(header + frame * 2)
    return target


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser(playwright: Playwright, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Replaces the harness's browser for this module: the same Chromium, plus a camera."""
    video = write_y4m(FACES / "obama2.jpg", tmp_path_factory.mktemp("camera") / "obama2.y4m")
    chromium = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[
            *CHROMIUM_ARGS,
            "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-video-capture={video}",
        ],
        headless=True,
    )
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture
def page_without_camera(playwright: Playwright, page_log: PageLog) -> Iterator[Page]:
    """A page in a Chromium that has no capture device at all."""
    chromium = playwright.chromium.launch(
        executable_path=CHROMIUM, args=list(CHROMIUM_ARGS), headless=True
    )
    try:
        context = chromium.new_context(locale="en-US", viewport={"width": 1024, "height": 768})
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        page.on("console", page_log.on_console)
        page.on("pageerror", page_log.on_exception)
        yield page
    finally:
        chromium.close()


# --- the application and the people ------------------------------------------------------


@pytest.fixture
def app(stack: Stack) -> Iterator[records.TestClient]:
    """A first-party application (no consent) whose redirect URI is a real local server."""
    with callback_server() as (redirect_uri, _):
        yield records.create_client(stack, skip_consent=True, redirect_uri=redirect_uri)


@pytest.fixture
def enrolled(stack: Stack) -> records.TestUser:
    person = records.create_user(stack)
    enrol_face(stack, person)
    return person


# --- the page --------------------------------------------------------------------------


def open_face_step(
    page: Page, stack: Stack, authorization: oidc.Authorization, login_hint: str | None = None
) -> None:
    """From ``/oauth2/authorize`` to the face step, through the password step's choice."""
    params = authorization.params("openid")
    if login_hint is not None:
        params["login_hint"] = login_hint
    page.goto(f"{stack.proxy_url}/oauth2/authorize?{urlencode(params)}")
    page.wait_for_url(re.compile(r"/auth/login\?challenge=[A-Za-z0-9_-]+"))
    expect(page.get_by_role("heading", name="Sign in", exact=True)).to_be_focused()
    page.get_by_role("button", name="Sign in with your face").click()
    expect(page.get_by_role("heading", name="Sign in with your face")).to_be_focused()


def photo_input(page: Page) -> Locator:
    return page.get_by_label("Choose a photo")


def sign_in_button(page: Page) -> Locator:
    return page.get_by_role("button", name="Sign in", exact=True)


def amr_after(page: Page, stack: Stack, authorization: oidc.Authorization) -> list[str]:
    """Waits for the redirect to the application, trades the code and returns the ID
    token's ``amr``."""
    page.wait_for_url(authorization.app.redirect_uri + "?**")
    values = oidc.query_of(page.url)
    assert values["state"] == authorization.state
    tokens = oidc.exchange(stack, authorization, values["code"])
    _, claims = oidc.verified_claims(
        stack, tokens["id_token"], audience=authorization.app.client_id
    )
    amr: list[str] = claims["amr"]
    return amr


def no_face_png(target: Path) -> Path:
    """A picture with no face in it: a plain gradient."""
    image = Image.linear_gradient("L").resize((640, 480)).convert("RGB")
    out = io.BytesIO()
    image.save(out, "PNG")
    target.write_bytes(out.getvalue())
    return target


# --- tests -------------------------------------------------------------------------------


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
