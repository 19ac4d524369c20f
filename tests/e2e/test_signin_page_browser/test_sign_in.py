"""The hosted sign-in page in headless Chromium: sign-in and consent, a wrong password, a
missing or unknown challenge, the signed-out pages."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_signin_page_browser.support import (
    SCOPES,
    WRONG_CREDENTIALS,
    Registered,
    authorize_url,
)
from tests.harness.browser import PageLog, assert_inputs_labelled
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_sign_in_and_consent_land_on_the_redirect_uri_with_a_code(
    page: Page,
    page_log: PageLog,
    stack: Stack,
    registered: Registered,
    screenshot: Callable[..., Path],
    client_app: tuple[str, list[str]],
) -> None:
    page.goto(authorize_url(stack, registered))
    page.wait_for_url(re.compile(r"/auth/login\?challenge=[A-Za-z0-9_-]+"))
    expect(page.get_by_role("heading", name="Sign in")).to_be_focused()
    expect(page.get_by_text("Browser Test App")).to_be_visible()
    assert_inputs_labelled(page)
    screenshot("login")

    page.get_by_label("Email").fill(registered.email)
    page.get_by_label("Password").fill(registered.password)
    page.get_by_role("button", name="Sign in", exact=True).click()

    expect(page.get_by_role("heading", name=re.compile("Allow Browser Test App"))).to_be_focused()
    scopes = page.locator("ul.scopes li")
    expect(scopes).to_have_count(len(SCOPES))
    for value in SCOPES:
        expect(scopes.filter(has_text=registered.scope_descriptions[value])).to_have_count(1)
    screenshot("consent")

    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(registered.redirect_uri + "?**")
    query = parse_qs(urlsplit(page.url).query)
    assert query["state"] == ["xyz"]
    assert query["iss"] == [stack.issuer]
    assert len(query["code"]) == 1
    assert query["code"][0]
    assert "error" not in query
    callbacks = [path for path in client_app[1] if path.startswith("/cb?")]
    assert len(callbacks) == 1  # the application got the code exactly once
    assert page_log.problems() == []


def test_wrong_password_shows_one_message_and_keeps_the_email(
    page: Page, page_log: PageLog, stack: Stack, registered: Registered
) -> None:
    page.goto(authorize_url(stack, registered, login_hint=registered.email))
    page.wait_for_url(re.compile(r"/auth/login\?challenge="))
    email = page.get_by_label("Email")
    expect(email).to_have_value(registered.email)  # pre-filled from login_hint

    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in", exact=True).click()

    alert = page.get_by_role("alert")
    expect(alert).to_have_text(WRONG_CREDENTIALS)
    expect(alert).to_be_focused()
    password = page.get_by_label("Password")
    expect(password).to_have_value("")
    expect(password).to_have_attribute("aria-invalid", "true")
    expect(password).to_have_accessible_description(re.compile(WRONG_CREDENTIALS))
    expect(email).to_have_value(registered.email)
    expect(page.get_by_role("button", name="Sign in", exact=True)).to_be_enabled()
    assert page_log.problems(expected_statuses=[401]) == []


def test_without_a_challenge_the_page_sends_the_person_back(
    page: Page, page_log: PageLog, stack: Stack
) -> None:
    for path in ("/auth/login", "/auth/", "/auth/login?challenge=bad%20id"):
        page.goto(stack.proxy_url + path)
        heading = page.get_by_role("heading", name="Start from your application")
        expect(heading).to_be_focused()
        expect(page.get_by_text("Go back to the application")).to_be_visible()
    assert page_log.problems() == []


def test_an_unknown_challenge_shows_the_expired_page(
    page: Page, page_log: PageLog, stack: Stack, screenshot: Callable[..., Path]
) -> None:
    page.goto(f"{stack.proxy_url}/auth/login?challenge={secrets.token_urlsafe(24)}")
    expect(page.get_by_role("heading", name="This sign-in request has expired")).to_be_focused()
    expect(page.get_by_text("Go back to the application")).to_be_visible()
    expect(page.locator("input")).to_have_count(0)
    assert page.title() == "This sign-in request has expired"
    screenshot("expired-challenge")
    assert page_log.problems(expected_statuses=[404]) == []
    assert page_log.csp_violations() == []


def test_signed_out_and_unknown_pages(page: Page, page_log: PageLog, stack: Stack) -> None:
    page.goto(f"{stack.proxy_url}/auth/logged-out")
    expect(page.get_by_role("heading", name="You are signed out")).to_be_visible()
    page.goto(f"{stack.proxy_url}/auth/nowhere")
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    assert page_log.problems() == []
