"""The branding screen in the console (issue #28, acceptance 2 in the console), in Chromium.

The first administrator opens ``/console/admin/branding``: a primary colour that fails the
contrast rule is refused by the provider and its sentence (naming the ratio) shows at the
colour's field; a good colour and a product name save and are there after a reload; an SVG
logo is refused with the provider's sentence at the file input; a PNG logo is stored and
shown from ``/media/brand/``; the mail preview shows the password reset mail in German when
German is chosen, its HTML in a sandboxed frame with its inline styles applied (through the
CSSOM, so the console's CSP reports nothing) and its text part. No console error, no CSP
violation, no axe violation.
"""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from tests.harness.browser import PageLog
from tests.harness.console import check_screen, create_first_admin, settle, sign_in
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

BRANDING = "/console/admin/branding"
SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(1)</script><rect width='10' height='10'/></svg>"
)


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 32), (29, 79, 145)).save(out, format="PNG")
    return out.getvalue()


def test_the_administrator_brands_the_provider_and_previews_the_mails(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, BRANDING)
    expect(page.get_by_role("heading", level=1, name="Branding")).to_be_visible()
    settle(page)
    form = page.get_by_role("form", name="The provider's brand")
    colour = form.get_by_label("Primary colour")

    # A colour white text cannot be read on: the live hint warns, the provider refuses it.
    colour.fill("#ffcc00")
    expect(form.get_by_test_id("contrast-hint")).to_have_text(
        "Contrast with white text: 1.5:1. WCAG AA needs at least 4.5:1; "
        "this colour will be refused."
    )
    form.get_by_role("button", name="Save brand").click()
    expect(colour).to_have_attribute("aria-invalid", "true")
    expect(colour).to_have_accessible_description(
        re.compile(r"contrast with white text is 1\.5:1; WCAG AA needs at least 4\.5:1")
    )
    expect(page.get_by_role("alert").first).to_contain_text("Primary colour")
    check_screen(page, "admin-branding-contrast-refused", request)

    # A good one saves, with a product name, and is there after a reload.
    form.get_by_label("Product name").fill("Acme Identity")
    colour.fill("#1D4F91")
    expect(form.get_by_test_id("contrast-hint")).to_contain_text("Meets WCAG AA")
    form.get_by_role("button", name="Save brand").click()
    expect(form.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    expect(colour).to_have_value("#1d4f91")  # stored lower-case
    page.reload()
    settle(page)
    form = page.get_by_role("form", name="The provider's brand")
    expect(form.get_by_label("Product name")).to_have_value("Acme Identity")
    expect(form.get_by_label("Primary colour")).to_have_value("#1d4f91")

    # An SVG logo (with a script) is refused with the provider's sentence at the input.
    upload = page.get_by_role("form", name="Upload a logo")
    logo_input = upload.get_by_label("New logo")
    logo_input.set_input_files(
        files=[{"name": "logo.svg", "mimeType": "image/svg+xml", "buffer": SVG}]
    )
    upload.get_by_role("button", name="Upload logo").click()
    expect(logo_input).to_have_attribute("aria-invalid", "true")
    expect(logo_input).to_have_accessible_description(re.compile(r"SVG .*refused"))
    expect(page.get_by_role("img", name="The current logo")).to_have_count(0)

    # A PNG is stored and shown from the provider's media path.
    logo_input.set_input_files(
        files=[{"name": "logo.png", "mimeType": "image/png", "buffer": png()}]
    )
    expect(upload.get_by_role("img", name="The chosen image")).to_be_visible()
    upload.get_by_role("button", name="Upload logo").click()
    expect(page.get_by_role("status").filter(has_text="Logo saved.")).to_be_visible()
    logo = page.get_by_role("img", name="The current logo")
    expect(logo).to_have_attribute("src", re.compile(r"/media/brand/brand-[0-9a-f]+\.png$"))
    page.wait_for_function(
        "img => img.complete && img.naturalWidth === 64", arg=logo.element_handle()
    )

    # The password reset mail in German.
    previews = page.get_by_role("region", name="Mail previews")
    previews.get_by_label("Mail", exact=True).select_option("password_reset")
    english = previews.get_by_test_id("mail-subject")
    expect(english).not_to_have_text("")
    english_subject = english.inner_text()
    previews.get_by_label("Language of the mail").select_option(label="Deutsch")
    subject = previews.get_by_test_id("mail-subject")
    expect(subject).not_to_have_text(english_subject)
    expect(subject).to_have_attribute("lang", "de")
    expect(previews.get_by_test_id("mail-text")).to_contain_text("Passwort")
    frame = previews.get_by_test_id("mail-html")
    expect(frame).to_have_attribute("sandbox", "allow-same-origin")
    expect(frame).to_have_attribute("title", re.compile("HTML part of the mail"))
    mail = page.frame_locator("[data-testid=mail-html]")
    expect(mail.locator("body")).to_contain_text("Passwort")
    expect(mail.locator("body")).to_contain_text("Acme Identity")  # the saved brand
    # Its inline styles were applied (through the CSSOM) and none was refused by the CSP.
    styled = mail.locator("[data-mail-style]").first
    expect(styled).to_have_count(1)
    assert styled.evaluate("e => e.style.cssText !== ''")
    check_screen(page, "admin-branding", request)

    assert page_log.csp_violations() == []
    # 422 (the colour) and 415 (the SVG) are the refusals the test provoked.
    assert page_log.problems(expected_statuses=[415, 422]) == []
