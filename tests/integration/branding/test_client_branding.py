"""``/admin/clients/{client_id}/branding`` (issue #28, docs/branding.md): a client's own
brand, shown as its RFC 7591 ``logoUri``/``tosUri``/``policyUri`` in the client reads, and
on the sign-in page during its flow only (the challenge read carries the effective brand:
the client's field by field over the provider's)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from idp_common.protocol.constants import SCOPE_IDP_BRANDING_READ, SCOPE_IDP_BRANDING_WRITE
from tests.harness.rows import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import (
    MISSING_ID,
    AdminApi,
    assert_guarded,
    assert_problem,
)
from tests.integration.branding.support import (
    brand_of_challenge,
    eventually,
    image,
    logo_name_of,
    objects,
    public,
)
from tests.integration.signin_fixtures import create_client, new_challenge

pytestmark = pytest.mark.integration

PROVIDER = {
    "productName": "Provider Co",
    "primaryColor": "#222222",
    "termsUri": "https://provider.example/terms",
    "privacyUri": "https://provider.example/privacy",
}


def branding(client_id: str) -> str:
    return f"/admin/clients/{client_id}/branding"


def listed_client(api: AdminApi, client_id: str) -> dict[str, Any]:
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 200}
        if cursor:
            params["cursor"] = cursor
        page = api.get("/admin/clients", params=params).json()
        for item in page["items"]:
            if item["client_id"] == client_id:
                return dict(item)
        cursor = page["nextCursor"]
        assert cursor, f"{client_id} not listed"


def test_client_brand_round_trip_reads_and_reset(stack: Stack, provider_brand: AdminApi) -> None:
    api = provider_brand
    rp = create_client(stack)
    empty = api.get(branding(rp.client_id))
    assert empty.status_code == 200, empty.text
    assert empty.json() == {
        "productName": None,
        "primaryColor": None,
        "termsUri": None,
        "privacyUri": None,
        "logoUri": None,
        "updatedAt": None,
    }
    read = api.get(f"/admin/clients/{rp.client_id}").json()
    assert (read["logoUri"], read["tosUri"], read["policyUri"]) == (None, None, None)

    sent = {
        "productName": "Shop",
        "primaryColor": "#0B5CAD",
        "termsUri": "https://shop.example/tos",
        "privacyUri": "https://shop.example/privacy",
    }
    answer = api.put(branding(rp.client_id), json=sent)
    assert answer.status_code == 200, answer.text
    assert answer.json()["primaryColor"] == "#0b5cad"
    logo = api.put(
        f"{branding(rp.client_id)}/logo",
        content=image("WEBP"),
        headers={"Content-Type": "image/webp"},
    )
    assert logo.status_code == 200, logo.text
    name = logo_name_of(stack, logo.json()["logoUri"])
    assert public(stack, f"/media/brand/{name}").headers["content-type"] == "image/webp"
    assert api.get(branding(rp.client_id)).json() == logo.json()

    # the client reads show the RFC 7591 metadata, in the one read and in the list
    read = api.get(f"/admin/clients/{rp.client_id}").json()
    assert read["tosUri"] == "https://shop.example/tos"
    assert read["policyUri"] == "https://shop.example/privacy"
    assert read["logoUri"] == logo.json()["logoUri"]
    item = listed_client(api, rp.client_id)
    assert (item["logoUri"], item["tosUri"], item["policyUri"]) == (
        read["logoUri"],
        read["tosUri"],
        read["policyUri"],
    )

    audit = api.audit_rows(rp.client_id)
    assert [a["action"] for a in audit] == ["branding.update", "branding.logo_set"]
    assert all(a["target_type"] == "brand" for a in audit)

    # reset: the row and its logo go; the client shows the provider's brand again
    reset = api.delete(branding(rp.client_id))
    assert reset.status_code == 204, reset.text
    assert api.get(branding(rp.client_id)).json()["productName"] is None
    assert not query(
        stack,
        "SELECT 1 FROM brands b JOIN clients c ON c.id = b.client_pk WHERE c.client_id = $1",
        rp.client_id,
    )
    assert name not in objects(stack)
    read = api.get(f"/admin/clients/{rp.client_id}").json()
    assert (read["logoUri"], read["tosUri"], read["policyUri"]) == (None, None, None)
    last = api.audit_rows(rp.client_id)[-1]
    assert last["action"] == "branding.reset" and last["status_code"] == 204
    assert json.loads(str(last["detail"]))["hadBrand"] is True


def test_challenge_shows_its_clients_brand_only(stack: Stack, provider_brand: AdminApi) -> None:
    api = provider_brand
    assert api.put("/admin/branding", json=PROVIDER).status_code == 200
    branded, plain = create_client(stack), create_client(stack)
    # the client sets a name and a colour only: the rest is the provider's
    own = {"productName": "Shop", "primaryColor": "#0b5cad"}
    assert api.put(branding(branded.client_id), json=own).status_code == 200
    logo = api.put(
        f"{branding(branded.client_id)}/logo",
        content=image("PNG"),
        headers={"Content-Type": "image/png"},
    )
    assert logo.status_code == 200, logo.text

    first = new_challenge(stack, branded)
    brand = eventually(
        lambda: brand_of_challenge(stack, first), lambda b: b["productName"] == "Shop"
    )
    assert brand == {
        "productName": "Shop",
        "logoUri": logo.json()["logoUri"],
        "primaryColor": "#0b5cad",
        "termsUri": PROVIDER["termsUri"],
        "privacyUri": PROVIDER["privacyUri"],
    }

    second = new_challenge(stack, plain)
    brand = eventually(
        lambda: brand_of_challenge(stack, second), lambda b: b["productName"] == "Provider Co"
    )
    assert brand == {**PROVIDER, "logoUri": None}
    api.delete(branding(branded.client_id))


def test_unknown_client_is_404(stack: Stack, admin_api: AdminApi) -> None:
    path = branding("no-such-client-" + MISSING_ID)
    assert_problem(admin_api.get(path), 404)
    assert_problem(admin_api.put(path, json={"productName": "x"}), 404)
    assert_problem(admin_api.delete(path), 404)
    before = objects(stack)
    logo = admin_api.put(
        f"{path}/logo", content=image("PNG"), headers={"Content-Type": "image/png"}
    )
    assert_problem(logo, 404)
    assert objects(stack) == before


def test_client_brand_is_checked_like_the_providers(stack: Stack, admin_api: AdminApi) -> None:
    rp = create_client(stack)
    answer = admin_api.put(branding(rp.client_id), json={"primaryColor": "#ffff00"})
    assert_problem(answer, 422, field="primaryColor")
    assert "1.0:1" in answer.json()["errors"][0]["message"]
    svg = admin_api.put(
        f"{branding(rp.client_id)}/logo",
        content=b"<svg onload='alert(1)'/>",
        headers={"Content-Type": "image/png"},
    )
    assert_problem(svg, 415, field="body")
    assert admin_api.get(branding(rp.client_id)).json()["updatedAt"] is None


@pytest.mark.parametrize(
    ("method", "suffix", "permission"),
    [
        ("GET", "", SCOPE_IDP_BRANDING_READ),
        ("PUT", "", SCOPE_IDP_BRANDING_WRITE),
        ("DELETE", "", SCOPE_IDP_BRANDING_WRITE),
        ("PUT", "/logo", SCOPE_IDP_BRANDING_WRITE),
        ("DELETE", "/logo", SCOPE_IDP_BRANDING_WRITE),
    ],
)
def test_each_route_needs_its_permission(
    stack: Stack, admin_api: AdminApi, method: str, suffix: str, permission: str
) -> None:
    rp = create_client(stack)
    body = {"productName": "Hijacked"} if (method, suffix) == ("PUT", "") else None
    assert_guarded(admin_api, method, branding(rp.client_id) + suffix, permission, json=body)
    assert admin_api.get(branding(rp.client_id)).json()["productName"] is None
