"""Profile fields and the audit log in the console (issue 8), through the browser only.

The first administrator defines a mapped field from a preset and a custom field with a
claim, watching the claim preview follow the typing; the provider's 422 shows next to
``validators.pattern`` and ``claimScope``; a label is changed and a field deleted; the
audit log is filtered by action and paged. Real back-channel deliveries (one answered 200,
one 500) are tagged "delivered" and "failed (500)".

The stack is shared by the whole test session, so keys and claim names carry a suffix of
their own (a preset's key can exist only once per stack).
"""

from __future__ import annotations

import re
import time
import uuid

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.harness.browser import PageLog
from tests.harness.callback_app import callback_server
from tests.harness.console import (
    check_screen,
    create_first_admin,
    fill_sign_in_page,
    sign_in,
    wait_for_console,
)
from tests.harness.console_steps import approve_client, create_client, open_screen
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

FIELDS = "/console/admin/profile-fields"
AUDIT_TABLE = "Audit events, newest first"


def _preview(page: Page) -> Locator:
    return page.get_by_role("region", name="Claim preview")


def _field_rows(page: Page) -> Locator:
    return page.get_by_role("region", name="Profile fields").get_by_role("row")


def _audit_rows(page: Page) -> Locator:
    """The data rows of the audit table (the header row left out)."""
    return page.get_by_role("region", name=AUDIT_TABLE).locator("tbody tr")


def _expect_field_error(field: Locator, message: str) -> None:
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_accessible_description(re.compile(re.escape(message)))


def test_the_administrator_defines_fields_with_a_live_claim_preview_and_reads_the_audit_log(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    """Fields from a preset and from scratch are created, listed, edited and deleted; the
    preview follows the claim name; refused input is shown by its field; the audit log
    lists the creations under an action filter and pages with a small page size."""
    suffix = uuid.uuid4().hex[:6]
    given, badge = f"given_name_{suffix}", f"badge_code_{suffix}"
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, FIELDS)
    expect(page.get_by_role("heading", level=1, name="Profile fields")).to_be_visible()
    check_screen(page, "admin-fields-list", request)

    # A mapped field from the preset given_name: choosing it fills the form.
    page.get_by_role("link", name="New field").click()
    expect(page.get_by_role("heading", level=1, name="New profile field")).to_be_visible()
    expect(_preview(page)).to_contain_text("Not released as a claim.")
    page.get_by_label("Start from a preset").select_option("given_name")
    expect(page.get_by_label("Key", exact=True)).to_have_value("given_name")
    expect(page.get_by_label("Label", exact=True)).to_have_value("Given name")
    expect(page.get_by_label("Maximum length")).to_have_value("200")
    expect(page.get_by_label("Claim name")).to_have_value("given_name")
    expect(page.get_by_label("Claim scope")).to_have_value("profile")
    expect(_preview(page)).to_contain_text(
        'Released in the ID token and at userinfo when the scope "profile" is granted:'
    )
    expect(_preview(page).locator("pre")).to_have_text('{\n  "given_name": "Ada"\n}')
    check_screen(page, "admin-fields-new-preset", request)
    page.get_by_label("Key", exact=True).fill(given)
    page.get_by_label("Claim name").fill(given)
    expect(_preview(page).locator("pre")).to_contain_text(f'"{given}": "Example"')
    page.get_by_role("button", name="Create field").click()
    expect(page.get_by_text(f'Field "{given}" created.')).to_be_visible()
    expect(_field_rows(page).filter(has_text=given)).to_contain_text(["Given name"])
    expect(_field_rows(page).filter(has_text=given)).to_contain_text([f"{given} under profile"])

    # A custom field: the preview follows the claim name as it is typed.
    page.get_by_role("link", name="New field").click()
    page.get_by_label("Key", exact=True).fill(badge)
    page.get_by_label("Label", exact=True).fill("Badge code")
    page.get_by_label("Pattern").fill("[A-Z")
    claim = page.get_by_label("Claim name")
    claim.press_sequentially("bad")
    expect(_preview(page)).to_contain_text(
        "Not released as a claim. Choose the scope that releases it."
    )

    # Both refusals of the provider, each next to its field, and the summary.
    page.get_by_role("button", name="Create field").click()
    expect(page.get_by_role("alert")).to_be_visible()
    _expect_field_error(page.get_by_label("Pattern"), "is not a valid regular expression")
    _expect_field_error(page.get_by_label("Claim scope"), "is required when claimName is given")
    expect(page.get_by_role("alert").get_by_role("listitem")).to_have_count(2)
    check_screen(page, "admin-fields-new-errors", request)

    page.get_by_label("Pattern").fill("[A-Z]{2}-[0-9]{4}")
    page.get_by_label("Claim scope").select_option("profile")
    expect(_preview(page).locator("pre")).to_have_text('{\n  "bad": "Example"\n}')
    claim.press("End")
    claim.press_sequentially(f"ge_{suffix}")
    expect(_preview(page).locator("pre")).to_have_text(f'{{\n  "badge_{suffix}": "Example"\n}}')
    page.get_by_label("Type").select_option("integer")
    expect(page.get_by_label("Pattern")).to_have_count(0)
    expect(_preview(page).locator("pre")).to_have_text(f'{{\n  "badge_{suffix}": 42\n}}')
    page.get_by_label("Type").select_option("enum")
    page.get_by_label("Permitted values").fill("green\nblue")
    expect(_preview(page).locator("pre")).to_have_text(f'{{\n  "badge_{suffix}": "green"\n}}')
    page.get_by_label("Type").select_option("string")
    expect(page.get_by_label("Permitted values")).to_have_count(0)
    page.get_by_role("button", name="Create field").click()
    expect(page.get_by_text(f'Field "{badge}" created.')).to_be_visible()
    expect(_field_rows(page).filter(has_text=badge)).to_contain_text(
        [f"badge_{suffix} under profile"]
    )
    check_screen(page, "admin-fields-list-filled", request)

    # The field's page: the fixed members read-only, a label changed. (The row of this
    # field: another module of the same run may have made a "Badge code" too.)
    _field_rows(page).filter(has_text=badge).get_by_role("link", name="Badge code").click()
    expect(page.get_by_role("heading", level=1, name=f"Profile field: {badge}")).to_be_visible()
    expect(page.get_by_label("Key", exact=True)).to_have_count(0)
    expect(page.get_by_label("Pattern")).to_have_value("[A-Z]{2}-[0-9]{4}")
    check_screen(page, "admin-fields-detail", request)
    page.get_by_label("Label", exact=True).fill("Badge number")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_text("Saved.", exact=True)).to_be_visible()
    page.get_by_role("link", name="Back to the list").click()
    expect(_field_rows(page).filter(has_text=badge)).to_contain_text(["Badge number"])

    # Deleting asks first and says the values go with it.
    page.get_by_role("link", name="Badge number").click()
    page.get_by_role("button", name="Delete field").click()
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("Every person's value of")
    check_screen(page, "admin-fields-delete-confirm", request)
    dialog.get_by_role("button", name="Delete field and values").click()
    expect(page.get_by_text(f'Field "{badge}" deleted, with every value of it.')).to_be_visible()
    expect(_field_rows(page).filter(has_text=badge)).to_have_count(0)

    # The audit log, filtered by action: the two creations, newest first.
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Audit log").click()
    expect(page.get_by_role("heading", level=1, name="Audit log")).to_be_visible()
    check_screen(page, "admin-audit-list", request)
    page.get_by_label("Action").fill("profile_field.create")
    page.get_by_role("button", name="Apply filters").click()
    expect(page).to_have_url(re.compile(r"[?&]action=profile_field\.create"))
    rows = _audit_rows(page)
    expect(rows.first).to_be_visible()
    for action in rows.locator("td:nth-child(2)").all_inner_texts():
        assert action == "profile_field.create"
    expect(rows.nth(0)).to_contain_text(f"key: {badge}")
    expect(rows.nth(1)).to_contain_text(f"key: {given}")
    expect(rows.nth(0)).to_contain_text("201")
    check_screen(page, "admin-audit-filtered", request)

    # Paging: five a page, the next page older and disjoint, back to the first.
    page.get_by_role("button", name="All events").click()
    expect(page.get_by_label("Action")).to_have_value("")
    page.get_by_label("Rows per page").select_option("5")
    page.get_by_role("button", name="Apply filters").click()
    expect(page).to_have_url(re.compile(r"[?&]limit=5"))
    expect(rows).to_have_count(5)
    first_page = rows.all_inner_texts()
    oldest_first = rows.last.locator("time").get_attribute("datetime")
    page.get_by_role("navigation", name="Pages").get_by_role("button", name="Next page").click()
    expect(page).to_have_url(re.compile(r"[?&]cursor="))
    expect(page.get_by_role("button", name="First page")).to_be_visible()
    expect(rows.first).to_be_visible()
    second_page = rows.all_inner_texts()
    assert not set(first_page) & set(second_page)
    newest_second = rows.first.locator("time").get_attribute("datetime")
    assert newest_second and oldest_first and newest_second <= oldest_first
    page.get_by_role("button", name="First page").click()
    expect(page.get_by_role("button", name="First page")).to_have_count(0)
    expect(page).not_to_have_url(re.compile(r"cursor="))
    assert page_log.problems(expected_statuses=[422]) == []


def test_logout_deliveries_are_tagged_delivered_or_failed_at_a_glance(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    """Real deliveries, through the browser only: two clients with back-channel URIs made
    on the Clients screen (one receiver answers 200, the other 500), both approved by the
    administrator in this browser, then "Sign out" ends the session and the dispatcher
    tells both. Signed in again, the "Logout deliveries" quick filter shows each row with
    "delivered" or "failed (500)"; also the audit log on a phone."""
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/clients")
    with (
        Receiver(status=200) as healthy,
        Receiver(status=500) as failing,
        callback_server() as (
            callback,
            _,
        ),
    ):
        for receiver in (healthy, failing):
            name, client_id = create_client(page, callback, backchannel=receiver.url)
            approve_client(page, stack, client_id, name, callback)
            page.goto(stack.proxy_url + "/console/admin/clients")
            wait_for_console(page)
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("heading", name="You are signed out")).to_be_visible()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (healthy.received and failing.received):
            time.sleep(0.1)
        assert len(healthy.received) == 1 and len(failing.received) == 1

    page.get_by_role("button", name="Sign in").click()
    fill_sign_in_page(page, admin)
    wait_for_console(page)
    open_screen(page, "Audit log")
    quick = page.get_by_role("button", name="Logout deliveries")
    expect(quick).to_have_attribute("aria-pressed", "false")
    quick.click()
    expect(quick).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_label("Action")).to_have_value("POST backchannel_logout")
    # Other tests of the session deliver too: these two rows are found by their URI.
    rows = _audit_rows(page)
    expect(rows.filter(has_not_text="backchannel_logout")).to_have_count(0)
    delivered = rows.filter(has_text=healthy.url)
    failed = rows.filter(has_text=failing.url)
    expect(delivered).to_have_count(1)
    expect(failed).to_have_count(1)
    expect(delivered.locator(".tag.ok")).to_have_text("delivered")
    expect(failed.locator(".tag.bad")).to_have_text("failed (500)")
    expect(failed).to_contain_text("service:logout-dispatcher")
    expect(failed).to_contain_text("reason: logout")
    check_screen(page, "admin-audit-deliveries", request)

    # On a phone: the filters in one column, the table scrolls inside its region.
    page.set_viewport_size({"width": 390, "height": 844})
    nav = page.get_by_role("navigation", name="Console")
    expect(nav).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    expect(nav.get_by_role("link", name="Audit log")).to_be_visible()
    page.get_by_role("button", name="Menu").click()
    expect(delivered).to_have_count(1)
    check_screen(page, "admin-audit-phone", request)
    assert page_log.problems() == []
