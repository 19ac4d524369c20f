"""Issue 5 acceptance 5, end to end through the proxy: the recent-sign-in step-up (RFC 9470).

A person whose browser session is 1000 s old gets a token from the console client without
signing in again; changing the password with it is refused with exactly
``WWW-Authenticate: Bearer error="insufficient_user_authentication", max_age=300``. The
console then sends the person to ``/oauth2/authorize?max_age=300``: the old session is not
enough, the person signs in with their password, the new token's ``auth_time`` is recent
and the change succeeds (ending every session, the new one too).
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e
SCOPE = "openid idp:account:read idp:account:write"
STEP_UP = 'Bearer error="insufficient_user_authentication", max_age=300'
NEW_PASSWORD = "a fresh and unusual passphrase 9"


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def claims_of(jwt: str) -> dict[str, Any]:
    """The payload of a token the provider signed (its signature is the API's business)."""
    payload = jwt.split(".")[1]
    decoded: dict[str, Any] = json.loads(
        base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    )
    return decoded


class Console:
    """The console's code flow (public client, PKCE) driven by a cookie-keeping browser."""

    def __init__(self, stack: Stack, browser: httpx.Client) -> None:
        self.stack = stack
        self.browser = browser
        self.redirect_uri = f"{stack.issuer}/console/callback"
        self.verifier = ""
        self.challenge = ""

    def authorize_url(self, **extra: str) -> str:
        self.verifier, challenge = records.pkce_pair()
        params = {
            "response_type": "code",
            "client_id": "console",
            "redirect_uri": self.redirect_uri,
            "scope": SCOPE,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": "st",
            **extra,
        }
        return str(httpx.URL(self.stack.proxy_url + "/oauth2/authorize", params=params))

    def exchange(self, callback: str) -> dict[str, Any]:
        assert callback.startswith(self.redirect_uri + "?"), callback
        answer = self.browser.post(
            "/oauth2/token",
            data={
                "grant_type": "authorization_code",
                "code": query_of(callback)["code"],
                "redirect_uri": self.redirect_uri,
                "client_id": "console",
                "code_verifier": self.verifier,
            },
        )
        assert answer.status_code == 200, answer.text
        tokens: dict[str, Any] = answer.json()
        return tokens

    def sign_in_steps(self, login: httpx.Response, person: records.TestUser) -> httpx.Response:
        """From the redirect to the sign-in page: the password step's answer."""
        assert login.status_code == 302, login.text
        challenge = query_of(login.headers["location"])["challenge"]
        self.challenge = challenge
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        step = self.browser.post("/api/v1/auth/login", json=body)
        assert step.status_code == 200, step.text
        return step

    def finish(self, step: httpx.Response) -> dict[str, Any]:
        assert step.json()["next"] == "done", step.text
        back = self.browser.get(step.json()["redirectTo"])
        assert back.status_code == 302, back.text
        return self.exchange(back.headers["location"])


def change_password(stack: Stack, token: str, person: records.TestUser) -> httpx.Response:
    return httpx.post(
        stack.proxy_url + "/entity/credentials/password",
        json={"currentPassword": person.password, "newPassword": NEW_PASSWORD},
        headers={"Authorization": f"Bearer {token}"},
        timeout=20,
    )


def test_an_old_sign_in_is_stepped_up_with_max_age(stack: Stack) -> None:
    person = records.create_user(stack)
    old_cookie, old_session = records.create_browser_session(
        stack, person.id, auth_time=int(time.time()) - 1000
    )
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=20) as browser:
        console = Console(stack, browser)
        silent = browser.get(
            console.authorize_url(), headers={"Cookie": f"svc_session={old_cookie}"}
        )
        assert silent.status_code == 302, silent.text
        stale = console.exchange(silent.headers["location"])
        assert time.time() - claims_of(stale["access_token"])["auth_time"] >= 1000

        refused = change_password(stack, stale["access_token"], person)
        assert refused.status_code == 403, refused.text
        assert refused.headers["www-authenticate"] == STEP_UP
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert records.session_exists(stack, old_session.sid)  # nothing changed

        started = int(time.time())
        login = browser.get(
            console.authorize_url(max_age="300"), headers={"Cookie": f"svc_session={old_cookie}"}
        )
        fresh = console.finish(console.sign_in_steps(login, person))
        assert claims_of(fresh["access_token"])["auth_time"] >= started

        done = change_password(stack, fresh["access_token"], person)
        assert done.status_code == 204, done.text
    assert not records.session_exists(stack, old_session.sid)
