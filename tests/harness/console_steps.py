"""Steps on the console's screens that several browser tests take (issue 8): each is what
a person does with the mouse and keyboard, found by role and accessible name."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import uuid
from urllib.parse import urlencode

from playwright.sync_api import Locator, Page, expect

from tests.harness.console import Person, settle
from tests.harness.stack import Stack


def open_screen(page: Page, name: str) -> None:
    """Follows a navigation entry (a console link: the tokens stay in memory)."""
    page.get_by_role("navigation", name="Console").get_by_role(
        "link", name=name, exact=True
    ).click()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    settle(page)


def field_error(field: Locator, message: str | re.Pattern[str]) -> None:
    """The field is marked invalid and its description carries the message."""
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_accessible_description(
        re.compile(message) if isinstance(message, str) else message
    )


def define_field(
    page: Page,
    key: str,
    label: str,
    data_type: str,
    *,
    writable: bool,
    bounds: tuple[str, str] | None = None,
) -> None:
    """A global profile field made on the administration screen "Profile fields"."""
    open_screen(page, "Profile fields")
    page.get_by_role("link", name="New field").click()
    page.get_by_label("Key", exact=True).fill(key)
    page.get_by_label("Label", exact=True).fill(label)
    page.get_by_label("Type").select_option(data_type)
    page.get_by_label("The person can see it").check()
    page.get_by_label("The person can change it").set_checked(writable)
    if bounds:
        page.get_by_label("Minimum", exact=True).fill(bounds[0])
        page.get_by_label("Maximum", exact=True).fill(bounds[1])
    page.get_by_role("button", name="Create field").click()
    expect(page.get_by_text(f'Field "{key}" created.')).to_be_visible()


def delete_field(page: Page, label: str) -> None:
    open_screen(page, "Profile fields")
    page.get_by_role("link", name=label, exact=True).click()
    page.get_by_role("button", name="Delete field").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Delete field and values").click()
    expect(page.get_by_text("deleted, with every value of it.")).to_be_visible()


def create_client(page: Page, callback: str, *, backchannel: str = "") -> tuple[str, str]:
    """A confidential client made on the Clients screen (redirect URI ``callback``, scopes
    openid and profile, and a back-channel logout URI if given); answers its name and
    client_id."""
    open_screen(page, "Clients")
    name = f"Notes {uuid.uuid4().hex[:6]}"
    new_client = page.get_by_role("form", name="New client")
    new_client.get_by_label("Name").fill(name)
    new_client.get_by_label("Redirect URIs", exact=True).fill(callback)
    if backchannel:
        new_client.get_by_label("Back-channel logout URI").fill(backchannel)
    new_client.get_by_role("button", name="Create client").click()
    reveal = page.get_by_role("dialog", name="Client created: its secret")
    client_id = reveal.locator("dd code").first.inner_text()
    reveal.get_by_role("button", name="I have saved it").click()
    scopes = page.get_by_role("group", name="Scopes the client may request")
    for scope in ("openid", "profile"):
        scopes.get_by_label(scope, exact=True).check()
    page.get_by_role("button", name="Save scopes").click()
    expect(page.get_by_role("status").filter(has_text="Scopes saved.")).to_be_visible()
    return name, client_id


def approve_client(page: Page, stack: Stack, client_id: str, name: str, callback: str) -> None:
    """The signed-in person opens the application's authorization request in the browser
    and allows it on the consent page; the browser arrives at ``callback`` with a code."""
    verifier = secrets.token_urlsafe(48)
    challenge = (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": callback,
        "scope": "openid profile",
        "state": "connect",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    page.goto(f"{stack.proxy_url}/oauth2/authorize?{urlencode(query)}")
    expect(page.get_by_role("heading", name=re.compile(f"Allow {name}"))).to_be_visible()
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(re.compile(re.escape(callback) + r"\?code="))


def connect_an_application(page: Page, stack: Stack, callback: str) -> str:
    """A client made on the Clients screen by the signed-in administrator and approved by
    them on the consent page; answers its name."""
    name, client_id = create_client(page, callback)
    approve_client(page, stack, client_id, name, callback)
    return name


def create_user(page: Page, person: Person, display_name: str) -> None:
    """A person made on the Users screen with ``person``'s email and password."""
    open_screen(page, "Users")
    page.get_by_role("button", name="New user").click()
    form = page.get_by_role("form", name="New user")
    form.get_by_label("Email").fill(person.email)
    form.get_by_label("Display name").fill(display_name)
    form.get_by_label("Password", exact=True).fill(person.password)
    form.get_by_role("button", name="Create user").click()
    expect(page.get_by_role("status").filter(has_text="User created")).to_contain_text(person.email)


def open_user(page: Page, email: str) -> None:
    """The person's screen, found with the Users screen's email search (the list of a
    shared stack may be longer than one page)."""
    open_screen(page, "Users")
    search = page.get_by_role("search", name="Search users")
    search.get_by_label("Email starts with").fill(email)
    search.get_by_role("button", name="Search").click()
    page.get_by_role("region", name="User list").get_by_role("link", name=email).click()
    expect(page.get_by_role("region", name="Sign-in and sessions")).to_be_visible()
    settle(page)


def confirm_user_action(page: Page, button: str, notice: str) -> None:
    """A button of the person's screen, confirmed in its dialog; waits for its notice."""
    page.get_by_role("button", name=button, exact=True).click()
    page.get_by_role("alertdialog").get_by_role("button", name=button, exact=True).click()
    expect(page.get_by_role("status").filter(has_text=notice)).to_be_visible()
