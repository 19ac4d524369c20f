"""The whole browser flow through the proxy: ``/oauth2/authorize`` creates the challenge,
the sign-in API completes it and sets the session cookie, authorize resumes it and
redirects to the client with a code (docs/design.md "Sign-in")."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_client, create_person

pytestmark = pytest.mark.integration


def test_authorize_sign_in_consent_and_back(stack: Stack) -> None:
    person = create_person(stack)
    rp = create_client(stack)
    params = {
        "response_type": "code",
        "client_id": rp.client_id,
        "redirect_uri": rp.redirect_uri,
        "scope": "openid email",
        "state": "st-1",
        "nonce": "n-1",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256",
    }
    with httpx.Client(base_url=stack.proxy_url, headers={"Origin": stack.issuer}) as browser:
        start = browser.get("/oauth2/authorize", params=params)
        assert start.status_code in (302, 303), start.text
        login_page = urlsplit(start.headers["location"])
        assert login_page.path == "/auth/login"
        challenge = parse_qs(login_page.query)["challenge"][0]
        read = browser.get(f"/api/v1/auth/challenge/{challenge}").json()
        assert read["client"]["client_id"] == rp.client_id and read["next"] == "password"
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        assert browser.post("/api/v1/auth/login", json=body).json() == {"next": "consent"}
        done = browser.post("/api/v1/auth/consent", json={"challenge": challenge, "approve": True})
        resume = browser.get(done.json()["redirectTo"])
    assert resume.status_code in (302, 303), resume.text
    back = urlsplit(resume.headers["location"])
    assert f"{back.scheme}://{back.netloc}{back.path}" == rp.redirect_uri
    query = parse_qs(back.query)
    assert query["state"] == ["st-1"] and query["iss"] == [stack.issuer]
    assert query["code"][0]
