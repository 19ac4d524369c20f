"""Typed profile values refused next to their field, and another administrator's password
needing two factors."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_console_admin_users.support import (
    SIGN_IN_PAGE,
    _confirm,
    new_field,
)
from tests.harness.browser import PageLog
from tests.harness.console import (
    check_screen,
    create_first_admin,
    fill_sign_in_page,
    find_row,
    new_person,
    sign_in,
    wait_for_console,
)
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_profile_values_are_typed_and_refused_next_to_their_field(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    """Each field gets the input of its type; a value the field refuses is shown by it;
    saved values come back from the provider; an emptied input removes the value."""
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/profile-fields")
    new_field(page, "desk_floor", "Desk floor", "integer")
    new_field(page, "badge_code", "Badge code", "string", pattern="[A-Z]{2}-[0-9]{4}")
    new_field(page, "on_call", "On call", "boolean")

    page.get_by_role("navigation", name="Console").get_by_role(
        "link", name="Users", exact=True
    ).click()
    find_row(page, "User list", admin.email).get_by_role("link", name=admin.email).click()
    values = page.get_by_role("form", name="Profile values")
    floor = values.get_by_label("Desk floor")
    badge = values.get_by_label("Badge code")
    on_call = values.get_by_label("On call")
    expect(floor).to_have_attribute("type", "number")
    expect(on_call).to_have_js_property("tagName", "SELECT")

    floor.fill("3")
    badge.fill("bad")
    on_call.select_option(label="Yes")
    values.get_by_role("button", name="Save profile values").click()
    expect(values.get_by_role("alert")).to_be_visible()
    expect(badge).to_have_attribute("aria-invalid", "true")
    expect(floor).not_to_have_attribute("aria-invalid", "true")
    check_screen(page, "admin-users-profile-values-refused", request)

    badge.fill("AB-1234")
    values.get_by_role("button", name="Save profile values").click()
    expect(values.get_by_role("status")).to_have_text("Saved.")
    page.reload()
    values = page.get_by_role("form", name="Profile values")
    expect(values.get_by_label("Desk floor")).to_have_value("3")
    expect(values.get_by_label("Badge code")).to_have_value("AB-1234")
    expect(values.get_by_label("On call")).to_have_value("true")
    check_screen(page, "admin-users-profile-values", request)

    values.get_by_label("Desk floor").fill("")
    values.get_by_role("button", name="Save profile values").click()
    expect(values.get_by_role("status")).to_have_text("Saved.")
    page.reload()
    expect(
        page.get_by_role("form", name="Profile values").get_by_label("Desk floor")
    ).to_have_value("")
    assert page_log.problems(expected_statuses=[422]) == []


def test_another_administrators_password_needs_two_factors(
    stack: Stack, page: Page, page_log: PageLog
) -> None:
    """Issue #19, attack 8: an administrator without an authenticator who sets another
    administrator's password is sent to sign in for two factors once; when that sign-in
    can only give one (no authenticator), the console says what is missing instead of
    sending them round again."""
    admin = create_first_admin(stack)
    other = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/users")
    search = page.get_by_role("search", name="Search users")
    search.get_by_label("Email starts with").fill(other.email)
    search.get_by_role("button", name="Search").click()
    page.get_by_role("region", name="User list").get_by_role("link", name=other.email).click()

    page.get_by_label("New password").fill(new_person().password)
    _confirm(page, "Set password", "Set a new password?", "Set password")
    expect(page).to_have_url(SIGN_IN_PAGE)  # the API asked for two factors
    fill_sign_in_page(page, admin)  # the password is all this administrator has
    wait_for_console(page)

    page.get_by_label("New password").fill(new_person().password)
    _confirm(page, "Set password", "Set a new password?", "Set password")
    expect(
        page.get_by_text(re.compile("needs a sign-in with your password and an authenticator code"))
    ).to_be_visible()
    expect(page).not_to_have_url(SIGN_IN_PAGE)
    assert page_log.problems(expected_statuses=[403]) == []
