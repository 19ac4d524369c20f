"""Fixtures of the face sign-in page tests: the built page, Chromium with and without a
fake camera, an application and an enrolled person."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from tests.e2e.test_signin_page_face.support import (
    DIST,
    write_y4m,
)
from tests.harness import records
from tests.harness.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    PageLog,
)
from tests.harness.callback_app import callback_server
from tests.harness.faces import FACES, enrol_face
from tests.harness.stack import Stack


@pytest.fixture(autouse=True)
def _built_page() -> None:
    if not DIST.is_file():
        pytest.fail("web/auth is not built: cd web/auth && npm ci && npm run build")


# Module scope, not package: without an __init__.py a "package" fixture lives until the
# session ends, and a running sync Playwright keeps an event loop marked as running in the
# main thread, which breaks every asyncio.run() after it (tests/harness/browser.py).
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
