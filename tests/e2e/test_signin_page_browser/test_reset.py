"""The hosted sign-in page's password reset: request and confirm forms."""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_signin_page_browser.support import (
    RESET_SENT,
)
from tests.harness.browser import PageLog, assert_inputs_labelled
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_reset_request_form_is_labelled_and_checks_the_address_first(
    page: Page, page_log: PageLog, stack: Stack, screenshot: Callable[..., Path]
) -> None:
    page.set_viewport_size({"width": 375, "height": 740})  # a phone
    page.goto(f"{stack.proxy_url}/auth/reset")
    expect(page.get_by_role("heading", name="Reset your password")).to_be_focused()
    assert_inputs_labelled(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, "the page scrolls sideways on a phone"

    # Keyboard only: Tab to the button and press Enter with the field empty.
    page.keyboard.press("Tab")
    expect(page.get_by_label("Email")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Send link")).to_be_focused()
    page.keyboard.press("Enter")
    email = page.get_by_label("Email")
    expect(email).to_be_focused()
    expect(email).to_have_attribute("aria-invalid", "true")
    expect(email).to_have_accessible_description("Enter your email address")
    screenshot("reset-request-phone")
    assert page_log.problems() == []


def test_reset_confirm_checks_that_the_passwords_match(
    page: Page, page_log: PageLog, stack: Stack
) -> None:
    page.goto(f"{stack.proxy_url}/auth/reset?token={secrets.token_urlsafe(32)}")
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_focused()
    assert_inputs_labelled(page)
    page.get_by_label("New password", exact=True).fill("a long new password")
    page.get_by_label("Confirm new password").fill("another long password")
    page.get_by_role("button", name="Change password").click()
    confirmation = page.get_by_label("Confirm new password")
    expect(confirmation).to_be_focused()
    expect(confirmation).to_have_accessible_description("The two passwords do not match")
    page.get_by_label("New password", exact=True).fill("short")
    page.get_by_label("Confirm new password").fill("short")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_label("New password", exact=True)).to_have_accessible_description(
        re.compile("Use at least 8 characters")
    )
    assert page_log.problems() == []


def test_reset_request_answers_the_same_whatever_the_address(
    page: Page, page_log: PageLog, stack: Stack
) -> None:
    page.goto(f"{stack.proxy_url}/auth/reset")
    page.get_by_label("Email").fill(f"nobody-{uuid.uuid4().hex[:8]}@example.test")
    page.get_by_role("button", name="Send link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_focused()
    expect(page.get_by_text(RESET_SENT)).to_be_visible()
    assert page_log.problems() == []


def test_reset_confirm_with_an_unknown_token_offers_a_new_link(
    page: Page, page_log: PageLog, stack: Stack
) -> None:
    page.goto(f"{stack.proxy_url}/auth/reset?token={secrets.token_urlsafe(32)}")
    page.get_by_label("New password", exact=True).fill("a long new password 1")
    page.get_by_label("Confirm new password").fill("a long new password 1")
    page.get_by_role("button", name="Change password").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("expired or was already used")
    expect(alert.get_by_role("link", name="Ask for a new link")).to_have_attribute(
        "href", "/auth/reset"
    )
    assert page_log.problems(expected_statuses=[400, 404, 410, 422]) == []
