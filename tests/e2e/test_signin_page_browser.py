"""The hosted sign-in page (web/auth) in real headless Chromium, through the real proxy.

The page is the committed build (``web/auth/dist``) served by nginx with the production
CSP, so every test also checks that nothing on the page breaks the policy.

Nothing is stubbed: a client and a person are written to the stack's database, the
browser starts at ``/oauth2/authorize`` and signs in with the real sign-in API.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pyotp
import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from idp_common.crypto.passwords import hash_password
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.models import (
    Client,
    ClientScope,
    ClientSecret,
    PasswordCredential,
    Scope,
    User,
)
from tests.harness import infra, records
from tests.harness.browser import PageLog, assert_inputs_labelled
from tests.harness.callback_app import callback_server
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_person

pytestmark = pytest.mark.e2e

DIST = Path(__file__).resolve().parents[2] / "web/auth/dist/index.html"
SCOPES = ("openid", "profile", "email")
WRONG_CREDENTIALS = "Email or password is incorrect"
RESET_SENT = "If an account exists for that address, we sent a link"
PASSWORD_CHANGED = "Password changed — sign in again from your application"


@pytest.fixture(autouse=True)
def _built_page() -> None:
    if not DIST.is_file():
        pytest.fail("web/auth is not built: cd web/auth && npm ci && npm run build")


# --- data written straight to the stack's database -------------------------------------


@dataclass
class Registered:
    client_id: str
    client_secret: str
    redirect_uri: str
    email: str
    password: str
    scope_descriptions: dict[str, str]


async def _register(stack: Stack, registered: Registered) -> None:
    engine = create_engine(stack.database_url)
    try:
        async with create_session_factory(engine)() as session, session.begin():
            client = Client(
                client_id=registered.client_id,
                name="Browser Test App",
                type="confidential",
                redirect_uris=[registered.redirect_uri],
                post_logout_redirect_uris=[],
                grant_types=["authorization_code", "refresh_token"],
                skip_consent=False,
            )
            user = User(email=registered.email, display_name="Browser Tester", email_verified=True)
            session.add_all([client, user])
            await session.flush()
            digest = hashlib.sha256(registered.client_secret.encode()).digest()
            session.add(ClientSecret(client_pk=client.id, digest=digest))
            session.add(
                PasswordCredential(user_id=user.id, hash=hash_password(registered.password))
            )
            scopes = (await session.scalars(select(Scope).where(Scope.value.in_(SCOPES)))).all()
            session.add_all(ClientScope(client_pk=client.id, scope_id=s.id) for s in scopes)
            registered.scope_descriptions.update({s.value: s.description for s in scopes})
    finally:
        await engine.dispose()


@pytest.fixture
def registered(stack: Stack, client_app: tuple[str, list[str]]) -> Registered:
    """A confidential client allowed ``openid profile email`` and a person with a password."""
    run = uuid.uuid4().hex[:8]
    data = Registered(
        client_id=f"browser-{run}",
        client_secret=secrets.token_urlsafe(32),
        redirect_uri=client_app[0],
        email=f"browser-{run}@example.test",
        password=f"correct horse {run}",
        scope_descriptions={},
    )
    infra.run(_register(stack, data))
    assert set(data.scope_descriptions) == set(SCOPES)
    return data


def _authorize_url(stack: Stack, registered: Registered, **extra: str) -> str:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    params = {
        "response_type": "code",
        "client_id": registered.client_id,
        "redirect_uri": registered.redirect_uri,
        "scope": " ".join(SCOPES),
        "state": "xyz",
        "nonce": "n1",
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
        **extra,
    }
    return f"{stack.proxy_url}/oauth2/authorize?{urlencode(params)}"


@pytest.fixture
def client_app() -> Iterator[tuple[str, list[str]]]:
    """A tiny HTTP server standing for the application: ``(redirect_uri, paths seen)``."""
    with callback_server() as running:
        yield running


def _focused_id(page: Page) -> str:
    return str(page.evaluate("document.activeElement && document.activeElement.id"))


# --- real flow: start at /oauth2/authorize (waits on the authorize endpoint) ------------


def test_sign_in_and_consent_land_on_the_redirect_uri_with_a_code(
    page: Page,
    page_log: PageLog,
    stack: Stack,
    registered: Registered,
    screenshot: Callable[..., Path],
    client_app: tuple[str, list[str]],
) -> None:
    page.goto(_authorize_url(stack, registered))
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
    page.goto(_authorize_url(stack, registered, login_hint=registered.email))
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


# --- real flow without authorize --------------------------------------------------------


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


# --- real flow through the sign-in API (waits on the sign-in API) -----------------------


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
