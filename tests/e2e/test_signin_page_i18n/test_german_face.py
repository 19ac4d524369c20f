"""The face step in German (issue #28 acceptance 1): its texts, the camera's messages with
a (fake) camera, a refused photo (no face: the server's ``face.no_face`` said in German)
and a wrong face, whatever the browser's own language."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, expect, sync_playwright

from tests.e2e.test_signin_page_face.support import no_face_png, write_y4m
from tests.e2e.test_signin_page_i18n.support import (
    alert,
    html_attributes,
    language_page,
    start_sign_in,
)
from tests.harness import oidc, records
from tests.harness.browser import CHROMIUM, CHROMIUM_ARGS, PageLog
from tests.harness.faces import FACES, enrol_face
from tests.harness.stack import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.face]

CAMERA_ON = "Die Kamera ist an. Schauen Sie hinein und nehmen Sie dann das Foto auf."
PHOTO_TAKEN = (
    "Foto aufgenommen. Wählen Sie „Anmelden“, um fortzufahren, oder nehmen Sie ein neues auf."
)


# Module scope (tests/harness/browser.py says why): a Chromium with a fake camera.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser(playwright: Playwright, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    video = write_y4m(FACES / "obama2.jpg", tmp_path_factory.mktemp("camera") / "obama2.y4m")
    chromium = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[
            *CHROMIUM_ARGS,
            "--use-fake-device-for-media-stream",
            "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-video-capture={video}",
        ],
        headless=True,
    )
    try:
        yield chromium
    finally:
        chromium.close()


def test_the_face_step_in_german(
    browser: Browser,
    page_log: PageLog,
    stack: Stack,
    first_party: records.TestClient,
    tmp_path: Path,
    screenshot: Callable[..., Path],
) -> None:
    person = records.create_user(stack)
    enrol_face(stack, person)
    with language_page(browser, page_log, "en-US") as page:
        page.context.grant_permissions(["camera"], origin=stack.proxy_url)
        start_sign_in(
            page,
            stack,
            oidc.Authorization(first_party),
            scope="openid",
            ui_locales="de",
            login_hint=person.email,
        )
        page.get_by_role("button", name="Mit Ihrem Gesicht anmelden").click()
        expect(page.get_by_role("heading", name="Mit Ihrem Gesicht anmelden")).to_be_focused()
        assert html_attributes(page) == ("de", "ltr")
        expect(page.get_by_role("group", name="Ihr Gesicht")).to_be_visible()
        photo = page.get_by_label("Foto auswählen")
        expect(photo).to_have_accessible_description(
            re.compile("Schauen Sie bei gutem Licht direkt in die Kamera")
        )

        page.get_by_role("button", name="Kamera verwenden").click()
        status = page.locator(".camera .status")
        expect(status).to_have_text(
            "Die Kamera ist an. Schauen Sie hinein und nehmen Sie dann das Foto auf."
        )
        expect(page.get_by_role("button", name="Kamera ausschalten")).to_be_visible()
        page.get_by_role("button", name="Foto aufnehmen").click()
        expect(status).to_have_text(PHOTO_TAKEN)
        expect(page.get_by_role("button", name="Neues Foto aufnehmen")).to_be_visible()
        screenshot("de-face-photo-taken", page)

        photo.set_input_files(no_face_png(tmp_path / "no-face.png"))
        page.get_by_role("button", name="Anmelden", exact=True).click()
        expect(photo).to_have_accessible_description(
            re.compile("Auf dem Foto wurde kein Gesicht gefunden")
        )
        screenshot("de-face-no-face", page)

        photo.set_input_files(FACES / "biden1.jpg")
        page.get_by_role("button", name="Anmelden", exact=True).click()
        expect(alert(page)).to_have_text("E-Mail-Adresse oder Gesicht ist falsch")
        screenshot("de-face-wrong-face", page)

        page.get_by_role("button", name="Stattdessen Passwort verwenden").click()
        expect(page.get_by_role("heading", name="Anmelden", exact=True)).to_be_focused()
    assert page_log.problems(expected_statuses=[401, 422]) == []
