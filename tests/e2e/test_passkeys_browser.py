"""Passkeys in real headless Chromium with its virtual authenticator (issue #26,
acceptance 1), through the real proxy, on a stack of this module's own whose issuer is
``http://localhost:PORT`` (a WebAuthn RP id must be a domain: tests/harness/webauthn.py).

One person's journey: a passkey is registered in the console; after signing out they sign
in with the passkey alone on the hosted page (discoverable: no email typed), then with the
password and the passkey as the second factor; they remove it in the console, and the
authenticator's copy no longer signs in. Each ID token's ``amr``/``acr`` says how.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.harness import oidc, records
from tests.harness.browser import PageLog
from tests.harness.callback_app import callback_server
from tests.harness.console import (
    create_first_admin,
    fill_sign_in_page,
    settle,
    wait_for_console,
)
from tests.harness.console_steps import open_user
from tests.harness.stack import Stack
from tests.harness.webauthn import VirtualAuthenticator, localhost_stack

pytestmark = pytest.mark.e2e
PASSKEY_ALONE_AMR = ["hwk", "user", "mfa"]
PASSWORD_AND_PASSKEY_AMR = ["pwd", "hwk", "user", "mfa"]
PHISHING_RESISTANT = "urn:idp:acr:phr"


@pytest.fixture(scope="module")
def passkey_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with localhost_stack(tmp_path_factory.mktemp("passkeys")) as running:
        yield running


@pytest.fixture
def app(passkey_stack: Stack) -> Iterator[records.TestClient]:
    with callback_server() as (redirect_uri, _):
        yield records.create_client(passkey_stack, skip_consent=True, redirect_uri=redirect_uri)


def _authorize(
    page: Page, stack: Stack, app: records.TestClient, **extra: str
) -> oidc.Authorization:
    """Open the application's authorization request at the issuer's origin (localhost)."""
    authorization = oidc.Authorization(app)
    params = {**authorization.params("openid"), **extra}
    page.goto(f"{stack.issuer}/oauth2/authorize?{urlencode(params)}")
    return authorization


def _id_token_claims(page: Page, stack: Stack, authorization: oidc.Authorization) -> dict[str, Any]:
    page.wait_for_url(authorization.app.redirect_uri + "?**")
    code = oidc.query_of(page.url)["code"]
    tokens = oidc.exchange(stack, authorization, code)
    _, claims = oidc.verified_claims(
        stack, tokens["id_token"], audience=authorization.app.client_id
    )
    return claims


def _passkeys_screen(page: Page, stack: Stack) -> None:
    page.goto(f"{stack.issuer}/console/account/passkeys")
    expect(page.get_by_role("heading", name="Passkeys", level=1)).to_be_visible()


def test_register_sign_in_alone_and_as_second_factor_then_remove(
    passkey_stack: Stack,
    app: records.TestClient,
    page: Page,
    page_log: PageLog,
    screenshot: Callable[..., Path],
) -> None:
    stack = passkey_stack
    authenticator = VirtualAuthenticator(page)
    person = create_first_admin(stack)

    # 1. Register a passkey in the console (a password sign-in a moment ago is recent).
    page.goto(f"{stack.issuer}/console/account/passkeys")
    fill_sign_in_page(page, person)
    wait_for_console(page)
    expect(page.get_by_role("heading", name="Passkeys", level=1)).to_be_visible()
    page.get_by_label("Passkey name").fill("Work laptop")
    page.get_by_role("button", name="Add a passkey").click()
    row = page.get_by_role("row").filter(has_text="Work laptop")
    expect(row).to_be_visible()
    expect(row).to_contain_text("This device only")
    expect(row).to_contain_text("Never")
    screenshot("console-passkeys")
    held = authenticator.credentials()
    assert [(c["rpId"], c["isResidentCredential"]) for c in held] == [("localhost", True)]

    # 2. Sign out of the console (the single sign-on session ends).
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="You are signed out")).to_be_visible()

    # 3. The passkey alone on the hosted page, by its button: no email typed. The
    # authenticator waits while the page loads (else the autofill offer is taken at once).
    authenticator.set_presence(False)
    authorization = _authorize(page, stack, app)
    page.wait_for_url(re.compile(r"/auth/login\?challenge="))
    expect(page.get_by_label("Email")).to_have_attribute(
        "autocomplete", re.compile(r"\bwebauthn\b")
    )
    screenshot("signin-passkey-offered")
    authenticator.set_presence(True)
    page.get_by_role("button", name="Sign in with a passkey").click()
    claims = _id_token_claims(page, stack, authorization)
    assert claims["amr"] == PASSKEY_ALONE_AMR
    assert claims["acr"] == PHISHING_RESISTANT

    # 3b. Through autofill (conditional mediation): the page asks as it loads, and the
    # authenticator answering is the person picking the passkey the email box offers.
    page.context.clear_cookies()
    authorization = _authorize(page, stack, app)
    claims = _id_token_claims(page, stack, authorization)
    assert claims["amr"] == PASSKEY_ALONE_AMR
    assert claims["acr"] == PHISHING_RESISTANT

    # 3c. A request for the phishing-resistant level is met by this session: no sign-in.
    signed_in_at = claims["auth_time"]
    authorization = _authorize(page, stack, app, acr_values=PHISHING_RESISTANT)
    claims = _id_token_claims(page, stack, authorization)
    assert (claims["acr"], claims["auth_time"]) == (PHISHING_RESISTANT, signed_in_at)

    # 4. The password, then the passkey as the second factor (prompt=login: sign in again).
    authenticator.set_presence(False)
    authorization = _authorize(page, stack, app, prompt="login")
    page.wait_for_url(re.compile(r"/auth/login\?challenge="))
    page.get_by_label("Email").fill(person.email)
    page.get_by_label("Password", exact=True).fill(person.password)
    page.get_by_role("button", name="Sign in", exact=True).click()
    use = page.get_by_role("button", name="Use your passkey")
    expect(use).to_be_visible()
    screenshot("signin-passkey-second-factor")
    authenticator.set_presence(True)
    use.click()
    claims = _id_token_claims(page, stack, authorization)
    assert claims["amr"] == PASSWORD_AND_PASSKEY_AMR
    assert claims["acr"] == PHISHING_RESISTANT

    # 5. The console shows it used; removing it needs the recent sign-in the passkey gave.
    _passkeys_screen(page, stack)
    wait_for_console(page)
    row = page.get_by_role("row").filter(has_text="Work laptop")
    expect(row).not_to_contain_text("Never")
    row.get_by_role("button", name="Remove").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Remove passkey").click()
    expect(page.get_by_role("row").filter(has_text="Work laptop")).to_have_count(0)

    # 6. The authenticator still holds its copy; the provider no longer takes it.
    assert len(authenticator.credentials()) == 1
    page.context.clear_cookies()
    authenticator.set_presence(False)
    _authorize(page, stack, app)
    page.wait_for_url(re.compile(r"/auth/login\?challenge="))
    authenticator.set_presence(True)
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page.get_by_role("alert")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/auth/login\?challenge="))
    screenshot("signin-removed-passkey")
    assert page_log.problems(expected_statuses=[401]) == []
    assert page_log.csp_violations() == []


def test_an_administrator_sees_and_removes_a_persons_passkey(
    passkey_stack: Stack, page: Page, page_log: PageLog, screenshot: Callable[..., Path]
) -> None:
    """The person's page in the console lists their passkeys (with the kind badge) and
    removes one (a lost device); the person's own screen no longer shows it."""
    stack = passkey_stack
    VirtualAuthenticator(page)
    admin = create_first_admin(stack)
    page.goto(f"{stack.issuer}/console/account/passkeys")
    fill_sign_in_page(page, admin)
    wait_for_console(page)
    page.get_by_label("Passkey name").fill("Phone")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.get_by_role("row").filter(has_text="Phone")).to_be_visible()

    open_user(page, admin.email)
    listed = page.get_by_role("region", name="Passkeys of this user")
    row = listed.get_by_role("row").filter(has_text="Phone")
    expect(row).to_contain_text("This device only")
    screenshot("admin-user-passkeys")
    row.get_by_role("button", name="Remove").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Remove passkey").click()
    expect(page.get_by_text("Passkey “Phone” removed.")).to_be_visible()
    expect(page.get_by_text("No passkeys.")).to_be_visible()

    _passkeys_screen(page, stack)
    settle(page)
    expect(page.get_by_role("row").filter(has_text="Phone")).to_have_count(0)
    assert page_log.problems() == []


def test_discovery_advertises_the_phishing_resistant_level(passkey_stack: Stack) -> None:
    document = httpx.get(
        f"{passkey_stack.proxy_url}/.well-known/openid-configuration", timeout=10
    ).json()
    assert document["acr_values_supported"] == [
        "urn:idp:acr:face",
        "urn:idp:acr:1fa",
        "urn:idp:acr:2fa",
        PHISHING_RESISTANT,
    ]
