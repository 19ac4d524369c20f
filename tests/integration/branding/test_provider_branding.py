"""``/admin/branding`` and ``/admin/branding/logo`` (issue #28, docs/branding.md): the
provider's brand through the admin API, its checks (contrast named with its ratio, links,
SVG refused whatever it is sent as, size), the logo served at ``/media/brand/`` through the
proxy, the public ``GET /api/v1/auth/branding``, the audit trail and the permissions."""

from __future__ import annotations

import json

import pytest

from idp_common.protocol.constants import SCOPE_IDP_BRANDING_READ, SCOPE_IDP_BRANDING_WRITE
from tests.harness.rows import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi, assert_guarded, assert_problem
from tests.integration.branding.support import (
    SVG,
    eventually,
    image,
    logo_name_of,
    noise_png,
    objects,
    public,
)

pytestmark = pytest.mark.integration

BASE = "/admin/branding"
SETTINGS_KEYS = {"productName", "primaryColor", "termsUri", "privacyUri", "logoUri", "updatedAt"}
BRAND_KEYS = {"productName", "logoUri", "primaryColor", "termsUri", "privacyUri"}


def provider_row(stack: Stack) -> dict[str, object] | None:
    rows = query(stack, "SELECT * FROM brands WHERE client_pk IS NULL")
    return rows[0] if rows else None


def provider_audit(stack: Stack) -> list[dict[str, object]]:
    return query(
        stack,
        "SELECT action, target_type, target, status_code, detail FROM audit_events "
        "WHERE target_type = 'brand' AND target = 'provider' ORDER BY id",
    )


def test_round_trip_and_public_read(stack: Stack, provider_brand: AdminApi) -> None:
    api = provider_brand
    before = len(provider_audit(stack))
    sent = {
        "productName": "  Acme Sign-in  ",
        "primaryColor": "#1A73E8",
        "termsUri": "https://acme.example/terms",
        "privacyUri": "https://acme.example/privacy",
    }
    answer = api.put(BASE, json=sent)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == SETTINGS_KEYS
    assert body["productName"] == "Acme Sign-in"  # trimmed
    assert body["primaryColor"] == "#1a73e8"  # stored lower-case
    assert (body["termsUri"], body["privacyUri"]) == (sent["termsUri"], sent["privacyUri"])
    assert body["logoUri"] is None and body["updatedAt"]
    assert api.get(BASE).json() == body
    row = provider_row(stack)
    assert row is not None
    assert (row["product_name"], row["primary_color"]) == ("Acme Sign-in", "#1a73e8")

    audit = provider_audit(stack)[before:]
    assert [a["action"] for a in audit] == ["branding.update"]
    assert audit[0]["status_code"] == 200
    assert set(json.loads(str(audit[0]["detail"]))["fields"]) == {
        "productName",
        "primaryColor",
        "termsUri",
        "privacyUri",
    }

    shown = eventually(
        lambda: public(stack, "/api/v1/auth/branding").json(),
        lambda b: b.get("productName") == "Acme Sign-in",
    )
    assert shown == {
        "productName": "Acme Sign-in",
        "logoUri": None,
        "primaryColor": "#1a73e8",
        "termsUri": "https://acme.example/terms",
        "privacyUri": "https://acme.example/privacy",
    }

    # a member left out stays; null clears it
    cleared = api.put(BASE, json={"productName": None}).json()
    assert cleared["productName"] is None and cleared["primaryColor"] == "#1a73e8"
    shown = eventually(
        lambda: public(stack, "/api/v1/auth/branding").json(),
        lambda b: b.get("productName") == "Identity Provider",
    )
    assert set(shown) == BRAND_KEYS and shown["productName"] == "Identity Provider"


@pytest.mark.parametrize(
    ("colour", "ratio"),
    [("#ffff00", "1.0:1"), ("#FFFF00", "1.0:1"), ("#777777", "4.4:1"), ("#00b0f0", "2.4:1")],
)
def test_low_contrast_colour_is_refused_naming_the_field_and_ratio(
    stack: Stack, provider_brand: AdminApi, colour: str, ratio: str
) -> None:
    api = provider_brand
    assert api.put(BASE, json={"primaryColor": "#1a73e8"}).status_code == 200
    answer = api.put(BASE, json={"primaryColor": colour, "productName": "Not saved"})
    assert_problem(answer, 422, field="primaryColor")
    (error,) = answer.json()["errors"]
    assert error["message"] == (
        f"contrast with white text is {ratio}; WCAG AA needs at least 4.5:1"
    )
    assert "primaryColor" in answer.json()["detail"]
    row = provider_row(stack)
    assert row is not None and row["primary_color"] == "#1a73e8"  # nothing written
    assert row["product_name"] is None
    # the refusal is audited too (by the app's after_exception hook)
    refused = query(
        stack,
        "SELECT detail FROM audit_events WHERE action = 'PUT /admin/branding' "
        "AND status_code = 422 ORDER BY id DESC LIMIT 1",
    )
    assert refused and "primaryColor" in str(refused[0]["detail"])


def test_a_colour_with_enough_contrast_is_accepted(provider_brand: AdminApi) -> None:
    answer = provider_brand.put(BASE, json={"primaryColor": "#767676"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["primaryColor"] == "#767676"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"primaryColor": "yellow"}, "primaryColor"),
        ({"primaryColor": "#fff"}, "primaryColor"),
        ({"termsUri": "http://acme.example/terms"}, "termsUri"),
        ({"termsUri": "javascript:alert(1)"}, "termsUri"),
        ({"privacyUri": "/privacy"}, "privacyUri"),
        ({"privacyUri": "https://acme.example/" + "p" * 2000}, "privacyUri"),
        ({"privacyUri": "https://user:pw@acme.example/"}, "privacyUri"),
        ({"productName": ""}, "productName"),
        ({"productName": "x" * 81}, "productName"),
    ],
)
def test_bad_values_are_422_naming_the_field(
    stack: Stack, provider_brand: AdminApi, body: dict[str, str], field: str
) -> None:
    before = provider_row(stack)
    assert_problem(provider_brand.put(BASE, json=body), 422, field=field)
    assert provider_row(stack) == before


def test_localhost_http_links_are_accepted(provider_brand: AdminApi) -> None:
    body = {"termsUri": "http://localhost:3000/terms", "privacyUri": "http://127.0.0.1/p"}
    answer = provider_brand.put(BASE, json=body)
    assert answer.status_code == 200, answer.text


def test_unknown_member_is_refused(provider_brand: AdminApi) -> None:
    answer = provider_brand.put(BASE, json={"logo": "x"})
    assert answer.status_code in (400, 422), answer.text


def test_logo_upload_serve_replace_remove(stack: Stack, provider_brand: AdminApi) -> None:
    api = provider_brand
    before = len(provider_audit(stack))
    png = image("PNG")
    answer = api.put(f"{BASE}/logo", content=png, headers={"Content-Type": "image/png"})
    assert answer.status_code == 200, answer.text
    first = logo_name_of(stack, answer.json()["logoUri"])
    assert first.endswith(".png") and first in objects(stack)
    assert api.get(BASE).json()["logoUri"] == answer.json()["logoUri"]

    served = public(stack, f"/media/brand/{first}")
    assert served.status_code == 200, served.text
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"
    assert served.headers["cache-control"] == "public, max-age=86400, immutable"
    assert served.content[:8] == b"\x89PNG\r\n\x1a\n"

    shown = eventually(
        lambda: public(stack, "/api/v1/auth/branding").json(),
        lambda b: b.get("logoUri") == answer.json()["logoUri"],
    )
    assert shown["logoUri"] == f"{stack.issuer}/media/brand/{first}"

    # replaced by a JPEG sent as a form: the old object goes once the change committed
    files = {"file": ("logo.jpg", image("JPEG", color=(200, 30, 40)), "image/jpeg")}
    replaced = api.put(f"{BASE}/logo", files=files)
    assert replaced.status_code == 200, replaced.text
    second = logo_name_of(stack, replaced.json()["logoUri"])
    assert second.endswith(".jpg") and second != first
    assert public(stack, f"/media/brand/{second}").headers["content-type"] == "image/jpeg"
    assert first not in objects(stack)
    assert public(stack, f"/media/brand/{first}").status_code == 404

    removed = api.delete(f"{BASE}/logo")
    assert removed.status_code == 204, removed.text
    assert api.get(BASE).json()["logoUri"] is None
    assert second not in objects(stack)
    assert api.delete(f"{BASE}/logo").status_code == 204  # idempotent

    actions = [a["action"] for a in provider_audit(stack)[before:]]
    assert actions == [
        "branding.logo_set",
        "branding.logo_set",
        "branding.logo_removed",
        "branding.logo_removed",
    ]


@pytest.mark.parametrize(
    ("how", "field"),
    [
        ({"content": SVG, "headers": {"Content-Type": "image/svg+xml"}}, "body"),
        ({"content": SVG, "headers": {"Content-Type": "image/png"}}, "body"),
        ({"content": b"\n  " + SVG, "headers": {"Content-Type": "image/webp"}}, "body"),
        ({"files": {"file": ("logo.svg", SVG, "image/svg+xml")}}, "file"),
        ({"files": {"file": ("logo.png", SVG, "image/png")}}, "file"),
    ],
    ids=["svg", "svg-as-png", "svg-as-webp", "form-svg", "form-svg-as-png"],
)
def test_svg_is_415_whatever_its_declared_type(
    stack: Stack, provider_brand: AdminApi, how: dict[str, object], field: str
) -> None:
    before, row = objects(stack), provider_row(stack)
    answer = provider_brand.put(f"{BASE}/logo", **how)  # type: ignore[arg-type]
    assert_problem(answer, 415, field=field)
    assert "SVG" in answer.json()["detail"]
    assert objects(stack) == before
    assert provider_row(stack) == row


def test_other_types_and_bad_images(stack: Stack, provider_brand: AdminApi) -> None:
    api = provider_brand
    gif = api.put(f"{BASE}/logo", content=b"GIF89a....", headers={"Content-Type": "image/gif"})
    assert_problem(gif, 415, field="body")
    fake = api.put(f"{BASE}/logo", content=b"not an image", headers={"Content-Type": "image/png"})
    assert_problem(fake, 422, field="body")
    lied = api.put(f"{BASE}/logo", content=image("PNG"), headers={"Content-Type": "image/jpeg"})
    assert_problem(lied, 422, field="body")


def test_a_logo_over_256_kib_is_413(stack: Stack, provider_brand: AdminApi) -> None:
    before = objects(stack)
    big = noise_png(300 * 1024)
    assert len(big) > 256 * 1024
    answer = provider_brand.put(f"{BASE}/logo", content=big, headers={"Content-Type": "image/png"})
    assert_problem(answer, 413)
    form = provider_brand.put(f"{BASE}/logo", files={"file": ("l.png", big, "image/png")})
    assert_problem(form, 413)
    assert objects(stack) == before


def test_media_names_are_checked(stack: Stack) -> None:
    assert public(stack, "/media/brand/" + "brand-" + "0" * 64 + ".png").status_code == 404
    assert public(stack, "/media/brand/..%2F..%2Fetc%2Fpasswd").status_code == 404
    assert public(stack, "/media/brand/brand-abc.png").status_code == 404
    assert public(stack, "/media/brand/" + "0" * 32 + ".png").status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "permission"),
    [
        ("GET", BASE, SCOPE_IDP_BRANDING_READ),
        ("PUT", BASE, SCOPE_IDP_BRANDING_WRITE),
        ("PUT", f"{BASE}/logo", SCOPE_IDP_BRANDING_WRITE),
        ("DELETE", f"{BASE}/logo", SCOPE_IDP_BRANDING_WRITE),
    ],
)
def test_each_route_needs_its_permission(
    stack: Stack, admin_api: AdminApi, method: str, path: str, permission: str
) -> None:
    before = provider_row(stack)
    body = {"productName": "Hijacked"} if (method, path) == ("PUT", BASE) else None
    assert_guarded(admin_api, method, path, permission, json=body)
    assert provider_row(stack) == before


def test_logo_upload_through_the_proxy(stack: Stack, provider_brand: AdminApi) -> None:
    """The console uploads through the proxy: the body reaches the admin service whole and
    an SVG is refused there too."""
    via_proxy = AdminApi(stack, base_url=stack.proxy_url)
    try:
        files = {"file": ("logo.png", image("PNG", size=(300, 100)), "image/png")}
        answer = via_proxy.put(f"{BASE}/logo", files=files)
        assert answer.status_code == 200, answer.text
        name = logo_name_of(stack, answer.json()["logoUri"])
        assert public(stack, f"/media/brand/{name}").status_code == 200
        svg = via_proxy.put(f"{BASE}/logo", files={"file": ("x.png", SVG, "image/png")})
        assert_problem(svg, 415, field="file")
        assert via_proxy.get(BASE).json()["logoUri"] == answer.json()["logoUri"]
    finally:
        via_proxy.close()
