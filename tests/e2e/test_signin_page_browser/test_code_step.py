"""The hosted sign-in page's code step with a real authenticator."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pyotp
import pytest
from playwright.sync_api import Page, expect

from tests.harness import records
from tests.harness.browser import PageLog, assert_inputs_labelled
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_person

pytestmark = pytest.mark.e2e


def test_code_step_with_a_real_authenticator(
    page: Page,
    page_log: PageLog,
    stack: Stack,
    screenshot: Callable[..., Path],
    client_app: tuple[str, list[str]],
) -> None:
    """A person with a confirmed authenticator: password, then the one-time code (pyotp),
    then straight to the application (first-party client: no consent)."""
    person = create_person(stack, totp=True)
    app = records.create_client(stack, skip_consent=True, redirect_uri=client_app[0])
    assert person.totp_secret is not None
    _, challenge = records.pkce_pair()
    page.goto(
        f"{stack.proxy_url}/oauth2/authorize?"
        + urlencode(
            {
                "response_type": "code",
                "client_id": app.client_id,
                "redirect_uri": app.redirect_uri,
                "scope": "openid",
                "state": "two-factor",
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            }
        )
    )
    page.wait_for_url(re.compile(r"/auth/login\?challenge="))
    page.get_by_label("Email").fill(person.email)
    page.get_by_label("Password").fill(person.password)
    page.get_by_role("button", name="Sign in", exact=True).click()

    code = page.get_by_label("One-time code")
    expect(code).to_be_visible()
    expect(code).to_have_attribute("autocomplete", "one-time-code")
    assert_inputs_labelled(page)
    screenshot("code-step")
    code.fill(pyotp.TOTP(person.totp_secret).now())
    page.get_by_role("button", name="Verify").click()

    page.wait_for_url(app.redirect_uri + "?**")
    query = parse_qs(urlsplit(page.url).query)
    assert query["state"] == ["two-factor"]
    assert query["code"][0]
    assert page_log.problems() == []
