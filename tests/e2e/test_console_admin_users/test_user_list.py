"""The console's user list pages by email."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_console_admin_users.support import (
    create,
)
from tests.harness.browser import PageLog
from tests.harness.console import (
    check_screen,
    create_first_admin,
    new_person,
    sign_in,
)
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_the_user_list_pages_by_email(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    """Six people made on the screen, found by their shared prefix, five a page: the next
    page holds the sixth (after the others by email), and "First page" goes back."""
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/users")
    prefix = new_person("paged").email.split("@", maxsplit=1)[0]
    people = [new_person(prefix) for _ in range(6)]
    for person in people:
        create(page, person, person.password, "Paged Person")
        created = page.get_by_role("status").filter(has_text="User created")
        expect(created).to_contain_text(person.email)
    by_email = sorted(person.email for person in people)

    search = page.get_by_role("search", name="Search users")
    search.get_by_label("Email starts with").fill(prefix)
    search.get_by_label("Rows per page").select_option("5")
    search.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(r"[?&]limit=5"))
    links = page.get_by_role("region", name="User list").get_by_role("link")
    expect(links).to_have_count(5)
    assert links.all_inner_texts() == by_email[:5]
    check_screen(page, "admin-users-paged", request)

    pages = page.get_by_role("navigation", name="Pages")
    pages.get_by_role("button", name="Next page").click()
    expect(page).to_have_url(re.compile(r"[?&]cursor="))
    expect(links).to_have_count(1)
    assert links.all_inner_texts() == by_email[5:]
    expect(pages.get_by_role("button", name="Next page")).to_have_count(0)

    pages.get_by_role("button", name="First page").click()
    expect(page).not_to_have_url(re.compile(r"cursor="))
    expect(links).to_have_count(5)
    assert links.all_inner_texts() == by_email[:5]
    assert page_log.problems() == []
