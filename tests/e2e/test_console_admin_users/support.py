"""Helpers shared by the console's user administration tests: confirm a dialog, create a
user, read an effective-scope row, add a profile field."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.harness.console import (
    Person,
)

SIGN_IN_PAGE = re.compile(r"/auth/login\?challenge=")


def _confirm(page: Page, button: str, title: str, confirm: str) -> None:
    """Presses a ConfirmButton and confirms in its dialog."""
    page.get_by_role("button", name=button, exact=True).click()
    dialog = page.get_by_role("alertdialog", name=title)
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name=confirm, exact=True).click()
    expect(dialog).to_have_count(0)


def effective_row(page: Page, scope: str) -> Locator:
    table = page.get_by_role("region", name="Effective scopes")
    return table.get_by_role("row").filter(
        has=page.get_by_role("rowheader", name=scope, exact=True)
    )


def create(page: Page, person: Person, password: str, display_name: str) -> Locator:
    """Opens "New user", fills it and submits; answers the form."""
    page.get_by_role("button", name="New user").click()
    form = page.get_by_role("form", name="New user")
    form.get_by_label("Email").fill(person.email)
    form.get_by_label("Display name").fill(display_name)
    form.get_by_label("Password", exact=True).fill(password)
    form.get_by_role("button", name="Create user").click()
    return form


def new_field(page: Page, key: str, label: str, data_type: str, pattern: str | None = None) -> None:
    """A profile field made on the console's own Profile fields screen."""
    page.get_by_role("link", name="New field").click()
    page.get_by_label("Key", exact=True).fill(key)
    page.get_by_label("Label", exact=True).fill(label)
    page.get_by_label("Type").select_option(data_type)
    if pattern:
        page.get_by_label("Pattern").fill(pattern)
    page.get_by_role("button", name="Create field").click()
    expect(page.get_by_text(f'Field "{key}" created.')).to_be_visible()
