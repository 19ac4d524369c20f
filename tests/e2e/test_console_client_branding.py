"""The client screen's "Branding" section in Chromium (issue #28, docs/console.md).

An administrator (the only state made outside the browser) creates a client through the
console and gives it its own brand: a primary colour that fails WCAG AA contrast with white
text is refused by the provider, and the console shows the provider's sentence (naming the
ratio) at the colour field; an SVG logo with a script is refused at the file input. A good
colour, a product name, a terms link and a PNG logo are saved and are there again after a
reload (a new page load reads them back from the API); "Use the provider's brand" clears
them. The screen passes axe-core.
"""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from admin_service.protocol.wcag_contrast import primary_color_problem
from tests.harness.browser import PageLog
from tests.harness.console import check_screen, create_first_admin, settle, sign_in
from tests.harness.console_steps import create_client, field_error
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

CALLBACK = "http://127.0.0.1:8765/callback"
#: White text on this yellow is about 1.5:1, far below WCAG AA's 4.5:1.
POOR_COLOUR = "#FFCC00"
GOOD_COLOUR = "#1D4F91"
SVG_WITH_SCRIPT = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


def _png() -> bytes:
    image = Image.new("RGB", (48, 24), (29, 79, 145))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_a_clients_brand_is_checked_saved_and_read_back(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/clients")
    name, client_id = create_client(page, CALLBACK)
    expect(page.get_by_role("heading", level=1, name=f"Client {name}")).to_be_visible()

    section = page.get_by_role("region", name="Branding")
    form = section.get_by_role("form", name="Client branding")
    colour = form.get_by_label("Primary colour", exact=True)
    expect(colour).to_have_value("")
    expect(section.get_by_text("No logo of its own: the provider's applies.")).to_be_visible()

    # A colour that fails contrast: the provider's own sentence, at the field.
    expected = primary_color_problem(POOR_COLOUR)
    assert expected is not None and "4.5:1" in expected
    colour.fill(POOR_COLOUR)
    form.get_by_role("button", name="Save branding").click()
    field_error(colour, re.escape(expected))
    expect(form.get_by_role("alert")).to_contain_text(expected)
    expect(form.get_by_text("Branding saved.")).to_have_count(0)
    check_screen(page, "client-branding-contrast-refused", request)

    # An SVG with a script is refused at the file input, with the provider's reason.
    logo = section.get_by_role("form", name="Client logo")
    file_input = logo.get_by_label("Logo image")
    file_input.set_input_files(
        {"name": "logo.svg", "mimeType": "image/svg+xml", "buffer": SVG_WITH_SCRIPT}
    )
    logo.get_by_role("button", name="Upload logo").click()
    field_error(file_input, "SVG")
    expect(section.get_by_test_id("client-logo")).to_have_count(0)

    # A good colour, a product name and a terms link; then a PNG logo.
    form.get_by_label("Product name").fill("Orders Portal")
    colour.fill(GOOD_COLOUR)
    form.get_by_label("Terms of service URL").fill("https://orders.example/terms")
    form.get_by_role("button", name="Save branding").click()
    expect(form.get_by_role("status").filter(has_text="Branding saved.")).to_be_visible()
    expect(colour).to_have_value(GOOD_COLOUR.lower())
    expect(colour).not_to_have_attribute("aria-invalid", "true")

    file_input.set_input_files({"name": "logo.png", "mimeType": "image/png", "buffer": _png()})
    expect(logo.get_by_role("img", name="The chosen image, not uploaded yet")).to_be_visible()
    logo.get_by_role("button", name="Upload logo").click()
    expect(logo.get_by_role("status").filter(has_text="Logo saved.")).to_be_visible()
    expect(section.get_by_test_id("client-logo")).to_have_attribute(
        "src", re.compile(r"/media/brand/brand-[0-9a-f]{64}\.png$")
    )

    # A reload reads everything back from the API.
    page.reload()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    settle(page)
    section = page.get_by_role("region", name="Branding")
    form = section.get_by_role("form", name="Client branding")
    expect(form.get_by_label("Product name")).to_have_value("Orders Portal")
    expect(form.get_by_label("Primary colour", exact=True)).to_have_value(GOOD_COLOUR.lower())
    expect(form.get_by_label("Terms of service URL")).to_have_value("https://orders.example/terms")
    expect(form.get_by_label("Privacy policy URL")).to_have_value("")
    logo_img = section.get_by_test_id("client-logo")
    expect(logo_img).to_have_attribute("alt", f"Logo of {name}")
    assert logo_img.evaluate("img => img.complete && img.naturalWidth") == 48
    check_screen(page, "client-branding-saved", request)

    # "Use the provider's brand": the client's row goes; the form is empty, after a reload too.
    section.get_by_role("button", name="Use the provider's brand").click()
    dialog = page.get_by_role("alertdialog", name=f"Use the provider's brand for {name}?")
    dialog.get_by_role("button", name="Use the provider's", exact=True).click()
    expect(
        section.get_by_role("status").filter(has_text="The client now uses the provider's brand.")
    ).to_be_visible()
    page.reload()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    settle(page)
    form = page.get_by_role("region", name="Branding").get_by_role("form", name="Client branding")
    expect(form.get_by_label("Product name")).to_have_value("")
    expect(form.get_by_label("Primary colour", exact=True)).to_have_value("")
    assert client_id
    assert page_log.problems(expected_statuses=[415, 422]) == []
