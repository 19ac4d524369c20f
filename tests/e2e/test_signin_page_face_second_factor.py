"""Face as a second factor only (``SVC_FACE_SIGNIN=second_factor``; issue #19 acceptance 2)
in real headless Chromium, through the real proxy, on a stack of this module's own that
runs with that setting.

The password step does not offer "Sign in with your face", and the sign-in API refuses a
face at the first step. After the password, a person with an enrolled face and no
authenticator is asked for it ("Confirm it is you", no email field); another person's face
is refused with its own message, their own signs in with ``amr`` pwd, face, mfa.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.harness import oidc, records
from tests.harness.browser import PageLog, assert_inputs_labelled
from tests.harness.callback_app import callback_server
from tests.harness.faces import FACES, enrol_face
from tests.harness.stack import Stack, running_stack

pytestmark = [pytest.mark.e2e, pytest.mark.face]
NOT_THIS_FACE = "This does not look like the face enrolled for this account"


@pytest.fixture(scope="module")
def second_factor_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"SVC_FACE_SIGNIN": "second_factor"}
    with running_stack(tmp_path_factory.mktemp("face-2fa"), env=env) as running:
        yield running


@pytest.fixture
def app(second_factor_stack: Stack) -> Iterator[records.TestClient]:
    with callback_server() as (redirect_uri, _):
        yield records.create_client(
            second_factor_stack, skip_consent=True, redirect_uri=redirect_uri
        )


def test_the_first_step_neither_offers_nor_takes_a_face(
    second_factor_stack: Stack, app: records.TestClient, page: Page, page_log: PageLog
) -> None:
    stack = second_factor_stack
    person = records.create_user(stack)
    enrol_face(stack, person, "obama1.jpg")
    authorization = oidc.Authorization(app)
    page.goto(f"{stack.proxy_url}/oauth2/authorize?{urlencode(authorization.params('openid'))}")
    page.wait_for_url(re.compile(r"/auth/login\?challenge=[A-Za-z0-9_-]+"))
    expect(page.get_by_role("heading", name="Sign in", exact=True)).to_be_focused()
    expect(page.get_by_label("Password")).to_be_visible()
    expect(page.get_by_role("button", name="Sign in with your face")).to_have_count(0)

    challenge = oidc.query_of(page.url)["challenge"]
    image = base64.b64encode((FACES / "obama2.jpg").read_bytes()).decode()
    refused = httpx.post(
        f"{stack.proxy_url}/api/v1/auth/biometric",
        json={"challenge": challenge, "email": person.email, "image": image},
        timeout=30,
    )
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == "auth.face_not_offered"
    assert page_log.problems() == []


def test_the_face_follows_the_password(
    second_factor_stack: Stack,
    app: records.TestClient,
    page: Page,
    page_log: PageLog,
    screenshot: Callable[..., Path],
) -> None:
    stack = second_factor_stack
    person = records.create_user(stack)
    enrol_face(stack, person, "obama1.jpg")
    authorization = oidc.Authorization(app)
    page.goto(f"{stack.proxy_url}/oauth2/authorize?{urlencode(authorization.params('openid'))}")
    page.wait_for_url(re.compile(r"/auth/login\?challenge="))
    page.get_by_label("Email").fill(person.email)
    page.get_by_label("Password").fill(person.password)
    page.get_by_role("button", name="Sign in", exact=True).click()

    expect(page.get_by_role("heading", name="Confirm it is you")).to_be_focused()
    expect(page.get_by_label("Email")).to_have_count(0)
    expect(page.get_by_role("button", name="Use your password instead")).to_have_count(0)
    assert_inputs_labelled(page)
    screenshot("face-second-step")

    photo = page.get_by_label("Choose a photo")
    photo.set_input_files(FACES / "biden1.jpg")
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text(NOT_THIS_FACE)
    screenshot("face-second-step-refused")

    photo.set_input_files(FACES / "obama2.jpg")
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_url(authorization.app.redirect_uri + "?**")
    code = oidc.query_of(page.url)["code"]
    tokens = oidc.exchange(stack, authorization, code)
    _, claims = oidc.verified_claims(stack, tokens["id_token"], audience=app.client_id)
    assert claims["amr"] == ["pwd", "face", "mfa"]
    assert claims["acr"] == "urn:idp:acr:2fa"
    assert page_log.problems(expected_statuses=[401]) == []
    assert page_log.csp_violations() == []
