"""Issue 5 acceptance 4, end to end through the proxy: a person signs in through the console,
enrols an authenticator (``/entity/totp/enroll``, ``/confirm``, codes made with pyotp), the
next sign-in asks for a code (a wrong one is refused, the right one completes it with
``amr`` ``pwd otp mfa``), and after ``DELETE /entity/totp`` sign-in no longer asks."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pyotp
import pytest

from tests.e2e.test_step_up import Console, claims_of
from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def sign_in(
    stack: Stack, person: records.TestUser, code: str | None = None, secret: str = ""
) -> dict[str, Any]:
    """A fresh browser through the console's flow; ``code`` answers the code step (after a
    wrong code that no step near now of ``secret`` has)."""
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as browser:
        console = Console(stack, browser)
        step = console.sign_in_steps(browser.get(console.authorize_url()), person)
        if code is None:
            assert step.json()["next"] == "done", step.text
            return console.finish(step)
        assert step.json() == {"next": "totp"}
        assert "svc_session" not in browser.cookies  # no session before the second factor
        near = {pyotp.TOTP(secret).at(time.time() + d) for d in (-60, -30, 0, 30, 60)}
        wrong = next(c for c in ("000000", "111111", "222222", "333333") if c not in near)
        refused = browser.post(
            "/api/v1/auth/totp", json={"challenge": console.challenge, "code": wrong}
        )
        assert refused.status_code == 401, refused.text
        step = browser.post(
            "/api/v1/auth/totp", json={"challenge": console.challenge, "code": code}
        )
        assert step.status_code == 200, step.text
        return console.finish(step)


def test_enrol_sign_in_with_a_code_then_remove(stack: Stack) -> None:
    person = records.create_user(stack)
    first = sign_in(stack, person)
    api = httpx.Client(
        base_url=stack.proxy_url,
        headers={"Authorization": f"Bearer {first['access_token']}"},
        timeout=20,
    )
    enrolment = api.post("/entity/totp/enroll")
    assert enrolment.status_code == 201, enrolment.text
    totp = pyotp.TOTP(enrolment.json()["secret"])
    confirmed = api.post("/entity/totp/confirm", json={"code": totp.now()})
    assert confirmed.status_code == 200, confirmed.text
    assert len(confirmed.json()["recoveryCodes"]) == 10
    assert api.get("/entity/totp").json()["enrolled"] is True

    # The confirming code's step is spent: the next step's code (accepted for drift) signs in.
    second = sign_in(stack, person, code=totp.at(time.time() + 30), secret=totp.secret)
    claims = claims_of(second["id_token"])
    assert claims["amr"] == ["pwd", "otp", "mfa"]
    assert claims["acr"] == "urn:idp:acr:2fa"

    api.headers["Authorization"] = f"Bearer {second['access_token']}"
    assert api.delete("/entity/totp").status_code == 204
    assert api.get("/entity/totp").json() == {"enrolled": False, "pending": False}
    third = sign_in(stack, person)
    assert claims_of(third["id_token"])["amr"] == ["pwd"]
    api.close()
