"""Sign in with a face, end to end through the proxy (issue 7 acceptance 2): a person enrols
at ``PUT /entity/face``, then signs in through the sign-in API with another photo and gets
an ID token whose ``amr`` holds ``face``; with an authenticator the code is asked and
``amr`` is ``face otp mfa``. Refusals: another person's face, an unknown account (the same
401), a group photo (422 naming the image)."""

from __future__ import annotations

import base64
import time
from typing import Any

import httpx
import pyotp
import pytest

from tests.harness import oidc, records
from tests.harness.faces import FACES, enrol_face
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi

pytestmark = [pytest.mark.e2e, pytest.mark.face]


def image_text(name: str, *, data_url: bool = False) -> str:
    encoded = base64.b64encode((FACES / name).read_bytes()).decode()
    return f"data:image/jpeg;base64,{encoded}" if data_url else encoded


def challenge_of(browser: oidc.Browser, authorization: oidc.Authorization) -> str:
    to_login = browser.authorize(authorization)
    assert to_login.status_code in (302, 303), to_login.text
    challenge = oidc.query_of(to_login.headers["location"])["challenge"]
    shown = browser.get(f"/api/v1/auth/challenge/{challenge}")
    assert shown.status_code == 200
    assert shown.json()["face"] is True  # offered: the stack is installed
    return challenge


def biometric(browser: oidc.Browser, challenge: str, email: str, photo: str) -> httpx.Response:
    return browser.post(
        "/api/v1/auth/biometric",
        json={"challenge": challenge, "email": email, "image": image_text(photo, data_url=True)},
    )


def id_token_claims(
    stack: Stack, browser: oidc.Browser, authorization: oidc.Authorization, step: httpx.Response
) -> dict[str, Any]:
    assert step.status_code == 200, step.text
    assert step.json()["next"] == "done", step.text
    code = browser._code_from(browser.get(step.json()["redirectTo"]), authorization)
    tokens = oidc.exchange(stack, authorization, code)
    _, claims = oidc.verified_claims(
        stack, tokens["id_token"], audience=authorization.app.client_id
    )
    return claims


@pytest.fixture(scope="module")
def app(stack: Stack) -> records.TestClient:
    return records.create_client(stack, skip_consent=True)


def test_enrol_then_sign_in_with_another_photo(stack: Stack, app: records.TestClient) -> None:
    person = records.create_user(stack)
    enrol_face(stack, person, "obama1.jpg")
    with oidc.Browser(stack) as browser:
        authorization = oidc.Authorization(app)
        challenge = challenge_of(browser, authorization)
        step = biometric(browser, challenge, person.email.upper(), "obama2.jpg")
        assert "svc_session" in browser.cookies
        claims = id_token_claims(stack, browser, authorization, step)
    assert claims["sub"] == person.id
    assert claims["amr"] == ["face"]
    assert claims["acr"] == "urn:idp:acr:face"
    assert claims["nonce"] == authorization.nonce


def test_with_an_authenticator_the_code_is_asked(stack: Stack, app: records.TestClient) -> None:
    person = records.create_user(stack)
    enrol_face(stack, person, "kit_harington1.jpg")
    api = EntityApi(stack, person)
    try:
        secret = api.post("/entity/totp/enroll").json()["secret"]
        totp = pyotp.TOTP(secret)
        assert api.post("/entity/totp/confirm", json={"code": totp.now()}).status_code == 200
    finally:
        api.close()
    with oidc.Browser(stack) as browser:
        authorization = oidc.Authorization(app)
        challenge = challenge_of(browser, authorization)
        step = biometric(browser, challenge, person.email, "kit_harington2.jpg")
        assert step.status_code == 200, step.text
        assert step.json() == {"next": "totp"}
        assert "svc_session" not in browser.cookies  # not signed in before the code
        code = totp.at(time.time() + 30)  # the confirm used the current step
        step = browser.post("/api/v1/auth/totp", json={"challenge": challenge, "code": code})
        claims = id_token_claims(stack, browser, authorization, step)
    assert claims["amr"] == ["face", "otp", "mfa"]
    assert claims["acr"] == "urn:idp:acr:2fa"


def test_refusals_say_nothing_about_the_account(stack: Stack, app: records.TestClient) -> None:
    person = records.create_user(stack)
    enrol_face(stack, person, "biden1.jpg")
    not_enrolled = records.create_user(stack)
    with oidc.Browser(stack) as browser:
        challenge = challenge_of(browser, oidc.Authorization(app))
        other_face = biometric(browser, challenge, person.email, "obama2.jpg")
        unknown = biometric(browser, challenge, "nobody-" + person.email, "biden2.jpg")
        no_template = biometric(browser, challenge, not_enrolled.email, "biden2.jpg")
        group = biometric(browser, challenge, person.email, "obama_and_biden.jpg")
        assert "svc_session" not in browser.cookies
    for refused in (other_face, unknown, no_template):
        assert refused.status_code == 401, refused.text
        assert refused.json()["code"] == "auth.invalid_credentials"
    assert other_face.json() == unknown.json() == no_template.json()
    assert group.status_code == 422
    assert group.json()["code"] == "face.several_faces"
    assert [e["field"] for e in group.json()["errors"]] == ["image"]
    reasons = records.query(
        stack,
        "SELECT detail->>'reason' AS reason FROM audit_events WHERE action = 'login.failed'"
        " AND detail->>'method' = 'face' AND actor = $1",
        person.id,
    )
    assert [r["reason"] for r in reasons] == ["face_mismatch"]
