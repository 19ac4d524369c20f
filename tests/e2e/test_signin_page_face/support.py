"""Helpers shared by the face sign-in page tests: a fake camera's video, the face step's
controls, the ``amr`` of the tokens issued."""

from __future__ import annotations

import io
import re
from pathlib import Path
from urllib.parse import urlencode

from PIL import Image
from playwright.sync_api import Locator, Page, expect

from tests.harness import oidc
from tests.harness.stack import Stack

DIST = Path(__file__).resolve().parents[3] / "web/auth/dist/index.html"
WRONG_FACE = "Email or face is incorrect"
SEVERAL_FACES = re.compile(r"\d+ faces were found")
NO_FACE = re.compile(r"No face was found")
CAMERA_REFUSED = "Camera access was refused"
NO_CAMERA = "No camera was found"


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
