"""The console's client form for the properties of issue #25.

An administrator creates, through the browser only, a confidential client with the FAPI
2.0 profile, ``private_key_jwt`` and a pasted JWK Set (a public EC P-256 key), PAR and
DPoP required, the token exchange grant and an exchange audience chosen from the APIs;
after a reload (the console signs in again by single sign-on) the settings form shows
every value as stored. Then the API's field errors appear next to their fields: a private
key in the JWK Set (``jwks.keys[0]``) at the JWK Set, and the FAPI profile without
``private_key_jwt`` (``securityProfile``) at the profile's select.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from joserfc.jwk import ECKey
from playwright.sync_api import Page, expect

from tests.harness.browser import PageLog
from tests.harness.console import check_screen, create_first_admin, find_row, settle, sign_in
from tests.harness.console_steps import field_error, open_screen
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.e2e

LOOPBACK_CALLBACK = "http://127.0.0.1:8765/callback"
EXCHANGE_LABEL = "Token exchange"


def _public_jwks(kid: str) -> dict[str, Any]:
    key = ECKey.generate_key("P-256", parameters={"kid": kid, "use": "sig", "alg": "ES256"})
    return {"keys": [key.as_dict(private=False)]}


def _private_jwks(kid: str) -> dict[str, Any]:
    key = ECKey.generate_key("P-256", parameters={"kid": kid})
    return {"keys": [key.as_dict(private=True)]}


def test_fapi_private_key_jwt_client_survives_a_reload_and_errors_show_at_their_fields(
    stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    tag = uuid.uuid4().hex[:6]
    name = f"Bank app {tag}"
    kid = f"bank-{tag}"
    admin = create_first_admin(stack)
    billing = tf.create_api(stack, [f"{tag}:billing:read"])
    sign_in(page, stack, admin, "/console/admin/clients")
    expect(page.get_by_role("heading", level=1, name="Clients")).to_be_visible()
    settle(page)

    form = page.get_by_role("form", name="New client")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Redirect URIs", exact=True).fill(LOOPBACK_CALLBACK)
    form.get_by_label(EXCHANGE_LABEL, exact=True).check()
    form.get_by_label("Token endpoint authentication").select_option("private_key_jwt")
    form.get_by_label("Public keys").select_option("jwks")
    form.get_by_label("JWK Set (jwks)").fill(json.dumps(_public_jwks(kid), indent=2))
    form.get_by_label("Require pushed authorization requests (PAR)").check()
    form.get_by_label("Require DPoP-bound access tokens").check()
    form.get_by_label("Security profile").select_option("fapi2")
    audiences = form.get_by_role("group", name="Token exchange audiences")
    # never the provider's own API: a token for it would administer the provider
    expect(audiences.get_by_label(f"({stack.issuer}/api)")).to_have_count(0)
    audiences.get_by_label(f"({billing})").check()
    check_screen(page, "admin-client-fapi-new", request)
    form.get_by_role("button", name="Create client").click()
    reveal = page.get_by_role("dialog", name="Client created: its secret")
    reveal.get_by_role("button", name="I have saved it").click()
    expect(page.get_by_role("heading", level=1, name=f"Client {name}")).to_be_visible()

    page.reload()  # tokens are in memory only: the console signs in again (SSO)
    expect(page.get_by_role("heading", level=1, name=f"Client {name}")).to_be_visible()
    settle(page)
    settings = page.get_by_role("form", name="Client settings")
    expect(settings.get_by_label("Token endpoint authentication")).to_have_value("private_key_jwt")
    expect(settings.get_by_label("Security profile")).to_have_value("fapi2")
    expect(settings.get_by_label("Public keys")).to_have_value("jwks")
    stored = json.loads(settings.get_by_label("JWK Set (jwks)").input_value())
    assert [key["kid"] for key in stored["keys"]] == [kid]
    assert "d" not in stored["keys"][0]
    expect(settings.get_by_label("Require pushed authorization requests (PAR)")).to_be_checked()
    expect(settings.get_by_label("Require DPoP-bound access tokens")).to_be_checked()
    expect(settings.get_by_label(EXCHANGE_LABEL, exact=True)).to_be_checked()
    saved_audiences = settings.get_by_role("group", name="Token exchange audiences")
    expect(saved_audiences.get_by_label(f"({billing})")).to_be_checked()
    check_screen(page, "admin-client-fapi-detail", request)

    # A private key pasted by mistake: the API names jwks.keys[0]; shown at the JWK Set.
    jwks_field = settings.get_by_label("JWK Set (jwks)")
    jwks_field.fill(json.dumps(_private_jwks(kid)))
    settings.get_by_role("button", name="Save client").click()
    field_error(jwks_field, "Key 1: must be a public key")
    check_screen(page, "admin-client-jwks-error", request)

    # FAPI 2.0 without private_key_jwt: the API names securityProfile.
    jwks_field.fill(json.dumps(_public_jwks(kid)))
    settings.get_by_label("Token endpoint authentication").select_option("client_secret_basic")
    settings.get_by_role("button", name="Save client").click()
    field_error(settings.get_by_label("Security profile"), "fapi2 needs a confidential client")
    expect(settings.get_by_role("alert")).to_be_visible()

    # Nothing of the refused saves was stored.
    open_screen(page, "Clients")
    # The suite's stack holds every client earlier tests made: it may be on a later page.
    row = find_row(page, "Clients", name, link=True)
    row.get_by_role("link", name=name, exact=True).click()
    settle(page)
    settings = page.get_by_role("form", name="Client settings")
    expect(settings.get_by_label("Token endpoint authentication")).to_have_value("private_key_jwt")
