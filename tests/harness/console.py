"""The console (``web/console``) in real Chromium through the proxy (issue 8).

Console tests use nothing but the browser, except for creating the first administrator
with the operator tool (``idp create-admin``), as an operator would.

- :func:`create_first_admin`: runs ``idp create-admin`` against the stack.
- :func:`sign_in`: opens a console path, signs in on the hosted page, waits for the console.
- :func:`find_row`: the row of a paged list that holds a text, following "Next page".
- :func:`check_screen`: the screen has finished loading; saves its screenshot (kept under
  ``var/screenshots/console/`` and listed at the end of the run) and runs axe-core on it:
  no violation of impact "serious" or "critical" is allowed.
"""

from __future__ import annotations

import json
import re
import secrets
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.harness.browser import TIMEOUT_MS
from tests.harness.stack import ROOT, Stack

AXE = ROOT / "web" / "console" / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ROOT / "var" / "screenshots" / "console"
BLOCKING_IMPACTS = ("serious", "critical")


#: Pages a list is followed through before :func:`find_row` gives up.
MOST_PAGES = 40


def find_row(page: Page, region: str, text: str, *, link: bool = False) -> Locator:
    """The row of the paged list ``region`` that holds ``text`` (``link``: a link named
    exactly ``text``), following "Next page" until it shows. The suite's stack keeps what
    every earlier test on it made (and with two workers, which tests those are changes
    from run to run), so a record need not be on the first page."""
    table = page.get_by_role("region", name=region)
    rows = table.get_by_role("row")
    if link:
        row = rows.filter(has=page.get_by_role("link", name=text, exact=True))
    else:
        row = rows.filter(has_text=text)
    next_page = page.get_by_role("navigation", name="Pages").get_by_role("button", name="Next page")
    for _ in range(MOST_PAGES):
        expect(rows.nth(1)).to_be_visible()  # a page of the list is shown
        if row.count():
            return row
        if not next_page.count():
            break
        first = rows.nth(1).inner_text()
        next_page.click()
        expect(rows.nth(1)).not_to_have_text(first)  # the next page replaced it
    raise AssertionError(f"no row with {text!r} in any page of {region!r}")


@dataclass(frozen=True)
class Person:
    email: str
    password: str


def new_person(prefix: str = "person") -> Person:
    """A fresh address and a password the policy accepts (nothing is created)."""
    return Person(
        email=f"{prefix}-{uuid.uuid4().hex[:10]}@example.com",
        password=f"console {secrets.token_hex(6)} passphrase",
    )


def create_first_admin(stack: Stack) -> Person:
    """The only state a console test sets up outside the browser (acceptance 4)."""
    admin = new_person("admin")
    result = stack.idp(
        "create-admin", env={"SVC_ADMIN_EMAIL": admin.email, "SVC_ADMIN_PASSWORD": admin.password}
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return admin


def fill_sign_in_page(page: Page, person: Person) -> None:
    """The hosted sign-in page's password step."""
    expect(page).to_have_url(re.compile(r"/auth/login\?challenge="))
    email = page.get_by_label("Email")
    if email.is_editable():
        email.fill(person.email)
    page.get_by_label("Password", exact=True).fill(person.password)
    page.get_by_role("button", name="Sign in", exact=True).click()


def sign_in(page: Page, stack: Stack, person: Person, path: str = "/console/") -> None:
    """Opens ``path`` in the console, signs in on the hosted page and waits to be back."""
    page.goto(stack.proxy_url + path)
    fill_sign_in_page(page, person)
    wait_for_console(page)


def wait_for_console(page: Page) -> None:
    # The hosted page's password check (Argon2) and the callback's token exchange and
    # saved-language read take a few seconds on a loaded machine: more than expect's 5 s.
    expect(page).to_have_url(re.compile(r"/console/(?!callback)"), timeout=TIMEOUT_MS)
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    settle(page)


def settle(page: Page) -> None:
    """Waits until no "Loading…" status is left on the screen."""
    expect(page.locator(".loading")).to_have_count(0)


def axe_violations(page: Page) -> list[dict[str, object]]:
    """axe-core's violations of impact serious or critical on the current page.

    The script is evaluated through the DevTools protocol, so the page's CSP (which allows
    no inline script) does not stop it and is not weakened for the test.
    """
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text())
    result = page.evaluate(
        """async () => {
            const r = await window.axe.run(document, {resultTypes: ["violations"]});
            return r.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5),
            }));
        }"""
    )
    assert isinstance(result, list)
    return [v for v in result if v.get("impact") in BLOCKING_IMPACTS]


def check_screen(page: Page, name: str, request: pytest.FixtureRequest) -> Path:
    """Screenshot and accessibility check of the screen now shown."""
    settle(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    request.node.user_properties.append(("screenshot", str(path)))
    violations = axe_violations(page)
    assert not violations, f"{name}: " + json.dumps(violations, indent=1)
    return path
