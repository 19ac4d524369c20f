"""Acceptance 2 of issue #28, sign-in page part: a client's brand (set through the admin
API) appears on the sign-in page during that client's flow only: its logo (on our origin,
under the CSP), its product name, its primary colour on the primary button, its terms and
privacy links on the consent screen. Another client's flow shows the provider's brand."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from PIL import Image
from playwright.sync_api import Browser, expect

from tests.e2e.test_signin_page_i18n.support import language_page, start_sign_in, submit_password
from tests.harness import oidc, records
from tests.harness.api import ApiClient
from tests.harness.browser import PageLog
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

PRODUCT = "Acme Travel"
COLOUR = "#0B5D1E"  # 7.9:1 with white
COLOUR_RGB = "rgb(11, 93, 30)"
TERMS = "https://acme.example/terms"
PRIVACY = "https://acme.example/privacy"
LOGIN = ("Email", "Password", "Sign in")


def logo_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (96, 48), (11, 93, 30)).save(out, "PNG")
    return out.getvalue()


def test_a_clients_brand_shows_during_its_flow_only(
    browser: Browser,
    page_log: PageLog,
    stack: Stack,
    admin: ApiClient,
    app: records.TestClient,
    first_party: records.TestClient,
    screenshot: Callable[..., Path],
) -> None:
    path = f"/admin/clients/{app.client_id}/branding"
    answer = admin.put(
        path,
        json={
            "productName": PRODUCT,
            "primaryColor": COLOUR,
            "termsUri": TERMS,
            "privacyUri": PRIVACY,
        },
    )
    assert answer.status_code == 200, answer.text
    answer = admin.put(path + "/logo", content=logo_png(), headers={"Content-Type": "image/png"})
    assert answer.status_code == 200, answer.text
    logo_uri = answer.json()["logoUri"]
    assert logo_uri.startswith(f"{stack.issuer}/media/brand/"), logo_uri
    provider = httpx.get(f"{stack.proxy_url}/api/v1/auth/branding", timeout=10).json()
    assert provider["productName"] != PRODUCT

    person = records.create_user(stack)
    with language_page(browser, page_log) as page:
        start_sign_in(page, stack, oidc.Authorization(app))
        header = page.get_by_role("banner")
        logo = header.get_by_role("img", name=PRODUCT)
        expect(logo).to_have_attribute("src", logo_uri)
        expect(logo).to_have_js_property("naturalWidth", 96)  # loaded, under the CSP
        expect(header.locator(".brand-name")).to_have_text(PRODUCT)
        sign_in = page.get_by_role("button", name="Sign in", exact=True)
        expect(sign_in).to_have_css("background-color", COLOUR_RGB)
        expect(sign_in).to_have_css("color", "rgb(255, 255, 255)")
        screenshot("brand-password", page)

        submit_password(page, LOGIN, person.email, person.password)
        expect(page.get_by_role("button", name="Allow")).to_have_css("background-color", COLOUR_RGB)
        terms = page.get_by_role("link", name="terms of service")
        privacy = page.get_by_role("link", name="privacy policy")
        expect(terms).to_have_attribute("href", TERMS)
        expect(privacy).to_have_attribute("href", PRIVACY)
        expect(terms).to_have_attribute("rel", "noopener")
        expect(privacy).to_have_attribute("rel", "noopener")
        expect(page.locator(".legal")).to_have_text(
            "Before you allow it, read the terms of service and the privacy policy."
        )
        screenshot("brand-consent", page)

    with language_page(browser, page_log) as page:
        start_sign_in(page, stack, oidc.Authorization(first_party))
        header = page.get_by_role("banner")
        expect(header.locator(".brand-name")).to_have_text(provider["productName"])
        expect(page.get_by_text(PRODUCT)).to_have_count(0)
        expect(page.get_by_role("img", name=PRODUCT)).to_have_count(0)
        sign_in = page.get_by_role("button", name="Sign in", exact=True)
        expect(sign_in).not_to_have_css("background-color", COLOUR_RGB)

        # The pages without a challenge show the provider's brand as well.
        page.goto(f"{stack.proxy_url}/auth/reset")
        expect(page.get_by_role("banner").locator(".brand-name")).to_have_text(
            provider["productName"]
        )
        expect(page.get_by_text(PRODUCT)).to_have_count(0)
    assert page_log.csp_violations() == []
    assert page_log.problems() == []
