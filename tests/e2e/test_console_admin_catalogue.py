"""The console's catalogue screens (issue 8): APIs and scopes, roles, groups and clients.

The first administrator (made by the operator tool, the only state set up outside the
browser) signs in and, through the browser only, creates an API with a scope, a role
holding it, a group with the role and a member, and a confidential client whose secret is
shown once and then rotated, a user, and a profile field released as a claim under the new
scope; each appears in its list afterwards (acceptance 1). A refused redirect URI
(422) is shown at its textarea naming the line, and the protected `idp` API's 409 in the
delete dialog. Every screen passes axe-core and leaves a screenshot. The signing
algorithms of APIs and clients (issue #24) are chosen in the same forms, and a refused
algorithm is shown next to its select.
"""

from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.harness.browser import PageLog
from tests.harness.console import check_screen, create_first_admin, find_row, new_person, sign_in
from tests.harness.console_steps import create_user, open_screen
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

LOOPBACK_CALLBACK = "http://127.0.0.1:8765/callback"
BACKCHANNEL = "http://127.0.0.1:8765/backchannel-logout"


def _open(page: Page, entry: str, heading: str) -> None:
    """Moves to a screen through the navigation (in-page, the tokens stay)."""
    nav = page.get_by_role("navigation", name="Console")
    nav.get_by_role("link", name=entry, exact=True).click()
    expect(page.get_by_role("heading", level=1, name=heading)).to_be_visible()


#: The paged lists (the stack holds what other tests made: a row may be on a later page).
PAGED = frozenset({"APIs", "Roles", "Groups", "Clients", "User list"})


def _row(page: Page, table: str, name: str) -> Locator:
    if table in PAGED:
        return find_row(page, table, name)
    return page.get_by_role("region", name=table).get_by_role("row").filter(has_text=name)


def test_an_administrator_builds_the_catalogue_in_the_browser(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    """API + scope, role, group (member, role), client (422 at its line, secret once,
    rotation) through the console; a protected delete answers the API's 409 sentence."""
    tag = uuid.uuid4().hex[:6]
    api_name = f"notes-{tag}"
    scope = f"{api_name}:items:read"
    role_name = f"Note readers {tag}"
    group_name = f"Note team {tag}"
    client_name = f"Notes web {tag}"
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/apis")

    # --- APIs and scopes ---------------------------------------------------------------
    expect(page.get_by_role("heading", level=1, name="APIs and scopes")).to_be_visible()
    expect(_row(page, "APIs", "idp")).to_have_count(1)
    check_screen(page, "admin-catalogue-apis-list", request)

    new_api = page.get_by_role("form", name="New API")
    new_api.get_by_role("button", name="Create API").click()
    expect(new_api.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    new_api.get_by_label("Name").fill(api_name)
    new_api.get_by_label("Audience").fill(f"https://{api_name}.example.com")
    new_api.get_by_role("button", name="Create API").click()
    expect(page.get_by_role("heading", level=1, name=f"API {api_name}")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="API created.")).to_be_visible()

    new_scope = page.get_by_role("form", name="New scope")
    expect(new_scope.get_by_label("Scope")).to_have_value(f"{api_name}:")
    new_scope.get_by_label("Scope").fill(scope)
    new_scope.get_by_label("Description").fill("Read your notes")
    new_scope.get_by_role("button", name="Add scope").click()
    expect(page.get_by_role("status").filter(has_text=f"Scope {scope} added.")).to_be_visible()
    expect(_row(page, f"Scopes of {api_name}", scope)).to_contain_text("Read your notes")
    check_screen(page, "admin-catalogue-api-detail", request)

    page.get_by_role("button", name=f"Edit {scope}").click()
    dialog = page.get_by_role("dialog", name=f"Edit {scope}")
    expect(dialog.get_by_label("Description")).to_be_focused()
    check_screen(page, "admin-catalogue-scope-edit-dialog", request)
    dialog.get_by_label("Description").fill("Read your notes and lists")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog).to_have_count(0)
    expect(_row(page, f"Scopes of {api_name}", scope)).to_contain_text("Read your notes and lists")

    _open(page, "APIs and scopes", "APIs and scopes")
    expect(_row(page, "APIs", api_name)).to_contain_text(f"https://{api_name}.example.com")

    # The provider's own API is protected: the dialog shows the API's 409 sentence.
    # (the suite's stack holds every API earlier tests made: it may be on a later page)
    find_row(page, "APIs", "idp", link=True).get_by_role("link", name="idp", exact=True).click()
    expect(page.get_by_role("heading", level=1, name="API idp")).to_be_visible()
    page.get_by_role("button", name="Delete API").click()
    confirm = page.get_by_role("alertdialog", name="Delete the API idp?")
    check_screen(page, "admin-catalogue-api-delete-dialog", request)
    confirm.get_by_role("button", name="Delete").click()
    expect(confirm.get_by_role("alert")).to_contain_text("the provider's own API cannot be deleted")
    check_screen(page, "admin-catalogue-api-delete-409", request)
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_have_count(0)

    # --- Roles ------------------------------------------------------------------------
    _open(page, "Roles", "Roles")
    expect(_row(page, "Roles", "administrator")).to_have_count(1)
    check_screen(page, "admin-catalogue-roles-list", request)
    new_role = page.get_by_role("form", name="New role")
    new_role.get_by_label("Name").fill(role_name)
    new_role.get_by_label("Description").fill("May read the notes")
    new_role.get_by_role("button", name="Create role").click()
    expect(page.get_by_role("heading", level=1, name=f"Role {role_name}")).to_be_visible()
    scopes = page.get_by_role("group", name="Scopes the role holds")
    scopes.get_by_label(scope, exact=True).check()
    page.get_by_role("button", name="Save scopes").click()
    expect(page.get_by_role("status").filter(has_text="Scopes saved.")).to_be_visible()
    check_screen(page, "admin-catalogue-role-detail", request)
    _open(page, "Roles", "Roles")
    expect(_row(page, "Roles", role_name)).to_contain_text("May read the notes")

    # --- Groups -------------------------------------------------------------------------
    _open(page, "Groups", "Groups")
    check_screen(page, "admin-catalogue-groups-list", request)
    new_group = page.get_by_role("form", name="New group")
    new_group.get_by_label("Name").fill(group_name)
    new_group.get_by_role("button", name="Create group").click()
    expect(page.get_by_role("heading", level=1, name=f"Group {group_name}")).to_be_visible()

    finder = page.get_by_role("form", name="Find a person")
    finder.get_by_label("Email begins with").fill(admin.email[:12])
    finder.get_by_role("button", name="Search").click()
    page.get_by_role("button", name=f"Add {admin.email}").click()
    expect(page.get_by_role("status").filter(has_text=f"{admin.email} added.")).to_be_visible()
    expect(_row(page, f"Members of {group_name}", admin.email)).to_have_count(1)

    page.get_by_role("group", name="Roles of the group").get_by_label(role_name).check()
    page.get_by_role("button", name="Save roles").click()
    expect(page.get_by_role("status").filter(has_text="Roles saved.")).to_be_visible()
    check_screen(page, "admin-catalogue-group-detail", request)

    page.get_by_role("button", name=f"Remove {admin.email}").click()
    remove = page.get_by_role("alertdialog", name=re.compile(r"^Remove "))
    check_screen(page, "admin-catalogue-group-remove-dialog", request)
    remove.get_by_role("button", name="Remove").click()
    expect(page.get_by_role("status").filter(has_text=f"{admin.email} removed.")).to_be_visible()
    expect(page.get_by_role("region", name=f"Members of {group_name}")).to_have_count(0)

    _open(page, "Groups", "Groups")
    expect(_row(page, "Groups", group_name)).to_contain_text(role_name)

    # --- Clients ------------------------------------------------------------------------
    _open(page, "Clients", "Clients")
    expect(find_row(page, "Clients", "Console", link=True)).to_have_count(1)
    check_screen(page, "admin-catalogue-clients-list", request)
    new_client = page.get_by_role("form", name="New client")
    new_client.get_by_label("Name").fill(client_name)
    redirects = new_client.get_by_label("Redirect URIs", exact=True)
    redirects.fill(f"{LOOPBACK_CALLBACK}\nhttp://example.com/cb")
    new_client.get_by_label("Back-channel logout URI").fill(BACKCHANNEL)
    new_client.get_by_label("Refresh token").check()
    new_client.get_by_role("button", name="Create client").click()
    # 422: the refused URI is named at its textarea, by line.
    expect(redirects).to_have_attribute("aria-invalid", "true")
    expect(new_client.locator(".field.has-error .field-error")).to_contain_text(
        "Line 2 (http://example.com/cb): must use https"
    )
    expect(new_client.get_by_role("alert")).to_be_visible()
    check_screen(page, "admin-catalogue-client-new-422", request)

    redirects.fill(LOOPBACK_CALLBACK)
    new_client.get_by_role("button", name="Create client").click()
    reveal = page.get_by_role("dialog", name="Client created: its secret")
    secret = reveal.locator("dd code").nth(1).inner_text()
    assert len(secret) >= 32, secret
    check_screen(page, "admin-catalogue-client-secret-once", request)
    reveal.get_by_role("button", name="I have saved it").click()
    expect(page.get_by_role("heading", level=1, name=f"Client {client_name}")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="Client created.")).to_be_visible()
    expect(page.get_by_text(secret)).to_have_count(0)
    settings = page.get_by_role("form", name="Client settings")
    expect(settings.get_by_label("Redirect URIs", exact=True)).to_have_value(LOOPBACK_CALLBACK)
    expect(settings.get_by_label("Back-channel logout URI")).to_have_value(BACKCHANNEL)

    client_scopes = page.get_by_role("group", name="Scopes the client may request")
    client_scopes.get_by_label("openid", exact=True).check()
    client_scopes.get_by_label(scope, exact=True).check()
    page.get_by_role("button", name="Save scopes").click()
    expect(page.get_by_role("status").filter(has_text="Scopes saved.")).to_be_visible()
    check_screen(page, "admin-catalogue-client-detail", request)

    page.get_by_role("button", name="Rotate secret").click()
    confirm = page.get_by_role("alertdialog", name="Rotate the client secret?")
    confirm.get_by_role("button", name="Rotate").click()
    rotated = page.get_by_role("dialog", name="The new client secret")
    new_secret = rotated.locator("dd code").nth(1).inner_text()
    assert len(new_secret) >= 32 and new_secret != secret
    check_screen(page, "admin-catalogue-client-rotated", request)
    rotated.get_by_role("button", name="I have saved it").click()
    replaced = page.get_by_role("status").filter(has_text="the old one no longer works")
    expect(replaced).to_be_visible()
    expect(page.get_by_text(new_secret)).to_have_count(0)

    # The reloaded detail keeps the scopes (and still shows no secret).
    page.reload()
    expect(page.get_by_role("heading", level=1, name=f"Client {client_name}")).to_be_visible()
    client_scopes = page.get_by_role("group", name="Scopes the client may request")
    expect(client_scopes.get_by_label(scope, exact=True)).to_be_checked()
    expect(client_scopes.get_by_label("openid", exact=True)).to_be_checked()

    # On a phone: the list through the "Menu" button.
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_role("button", name="Menu").click()
    _open(page, "Clients", "Clients")
    row = _row(page, "Clients", client_name)
    expect(row).to_contain_text("confidential")
    expect(row).to_contain_text("authorization_code, refresh_token")
    check_screen(page, "admin-catalogue-clients-phone", request)
    page.get_by_role("button", name="Menu").click()
    page.set_viewport_size({"width": 1024, "height": 768})

    # --- A user and a profile field released as a claim under the new scope ---------------
    # (with the above, the whole of acceptance 1 in one administrator's session)
    person = new_person("catalogue")
    create_user(page, person, f"Catalogue Person {tag}")
    page.get_by_role("search", name="Search users").get_by_label("Email starts with").fill(
        person.email
    )
    page.get_by_role("search", name="Search users").get_by_role("button", name="Search").click()
    expect(_row(page, "User list", person.email)).to_contain_text(f"Catalogue Person {tag}")

    open_screen(page, "Profile fields")
    page.get_by_role("link", name="New field").click()
    page.get_by_label("Key", exact=True).fill(f"notebook_{tag}")
    page.get_by_label("Label", exact=True).fill(f"Notebook {tag}")
    page.get_by_label("Claim name").fill(f"notebook_{tag}")
    page.get_by_label("Claim scope").select_option(scope)
    expect(page.get_by_role("region", name="Claim preview")).to_contain_text(scope)
    page.get_by_role("button", name="Create field").click()
    expect(page.get_by_text(f'Field "notebook_{tag}" created.')).to_be_visible()
    expect(page.get_by_role("row").filter(has_text=f"Notebook {tag}")).to_contain_text(
        f"notebook_{tag}"
    )
    check_screen(page, "admin-catalogue-fields-list", request)

    assert page_log.problems(expected_statuses=[409, 422]) == []


def test_signing_algorithms_in_the_api_and_client_forms(
    stack: Stack,
    extra_processes: Stack,
    page: Page,
    page_log: PageLog,
    request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    """Issue #24: the API form's access-token algorithm and the client form's ID-token and
    userinfo algorithms. A refusal of the provider (an admin service holding only RS256
    keys, to which the browser's POST is routed) is shown next to the select."""
    tag = uuid.uuid4().hex[:6]
    api_name = f"ledger-{tag}"
    rs256_only = tmp_path / "keys"
    rs256_only.mkdir(mode=0o700)
    for key in stack.key_dir.glob("*.pem"):
        shutil.copy2(key, rs256_only / key.name)
    extra = extra_processes.start_service("admin", {"SVC_KEY_DIR": str(rs256_only)})
    extra_processes.wait_until_up(extra)
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, "/console/admin/apis")
    expect(page.get_by_role("heading", level=1, name="APIs and scopes")).to_be_visible()

    new_api = page.get_by_role("form", name="New API")
    new_api.get_by_label("Name").fill(api_name)
    new_api.get_by_label("Audience").fill(f"https://{api_name}.example.com")
    algorithm = new_api.get_by_label("Access token signing algorithm")
    expect(algorithm).to_have_value("RS256")
    algorithm.select_option("ES256")
    page.route(
        re.compile(r".*/admin/apis$"),
        lambda route: route.continue_(url=f"{extra.url}/admin/apis"),
    )
    new_api.get_by_role("button", name="Create API").click()
    expect(algorithm).to_have_attribute("aria-invalid", "true")
    expect(new_api.locator(".field.has-error .field-error")).to_have_text(
        "no ES256 signing key; generate one with idp keys generate --alg ES256"
    )
    expect(new_api.get_by_role("alert")).to_contain_text("Access token signing algorithm")
    check_screen(page, "admin-catalogue-api-alg-refused", request)

    page.unroute(re.compile(r".*/admin/apis$"))  # the stack's admin holds every algorithm
    new_api.get_by_role("button", name="Create API").click()
    expect(page.get_by_role("heading", level=1, name=f"API {api_name}")).to_be_visible()
    expect(page.get_by_role("definition").filter(has_text="ES256")).to_have_count(1)
    edit = page.get_by_role("form", name="Edit API")
    expect(edit.get_by_label("Access token signing algorithm")).to_have_value("ES256")

    _open(page, "Clients", "Clients")
    new_client = page.get_by_role("form", name="New client")
    new_client.get_by_label("Name").fill(f"Ledger web {tag}")
    new_client.get_by_label("Redirect URIs", exact=True).fill(LOOPBACK_CALLBACK)
    expect(new_client.get_by_label("ID token signing algorithm")).to_have_value("RS256")
    expect(new_client.get_by_label("Userinfo signing algorithm")).to_have_value("")
    new_client.get_by_label("ID token signing algorithm").select_option("EdDSA")
    new_client.get_by_label("Userinfo signing algorithm").select_option("PS256")
    new_client.get_by_role("button", name="Create client").click()
    page.get_by_role("dialog", name="Client created: its secret").get_by_role(
        "button", name="I have saved it"
    ).click()
    settings = page.get_by_role("form", name="Client settings")
    expect(settings.get_by_label("ID token signing algorithm")).to_have_value("EdDSA")
    expect(settings.get_by_label("Userinfo signing algorithm")).to_have_value("PS256")
    settings.get_by_label("Userinfo signing algorithm").select_option("")
    settings.get_by_role("button", name="Save client").click()
    expect(settings.get_by_role("status").filter(has_text="Saved.")).to_be_visible()
    page.reload()
    settings = page.get_by_role("form", name="Client settings")
    expect(settings.get_by_label("ID token signing algorithm")).to_have_value("EdDSA")
    expect(settings.get_by_label("Userinfo signing algorithm")).to_have_value("")
    check_screen(page, "admin-catalogue-client-algs", request)
