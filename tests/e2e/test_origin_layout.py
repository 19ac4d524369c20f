"""Spec part 1 through the real proxy: the path table, rules 1-5, headers and caching.

A response made by a service is told apart from one nginx makes itself by the problem
body: the services' bodies carry ``instance`` (the request path), nginx's do not.
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "referrer-policy")


def served_by_provider(response: httpx.Response) -> bool:
    return (
        response.headers.get("content-type", "").startswith("application/problem+json")
        and response.json().get("instance") is not None
    )


def served_by_proxy(response: httpx.Response) -> bool:
    return "instance" not in response.json()


# --- the path table ------------------------------------------------------------------


def test_well_known_is_served_by_the_provider_at_the_host_root(
    proxy: httpx.Client, stack: Stack
) -> None:
    response = proxy.get("/.well-known/openid-configuration")
    assert response.status_code == 200
    assert response.json()["issuer"] == stack.issuer


def test_oauth2_is_served_by_the_provider(proxy: httpx.Client) -> None:
    response = proxy.get("/oauth2/not-a-route")
    assert response.status_code == 404
    assert served_by_provider(response)
    assert response.json()["instance"] == "/oauth2/not-a-route"


def test_sign_in_api_is_served_by_the_provider(proxy: httpx.Client) -> None:
    response = proxy.get("/api/v1/auth/challenge/unknown")
    assert response.status_code == 404
    assert served_by_provider(response)


def test_admin_is_served_by_the_provider(proxy: httpx.Client) -> None:
    response = proxy.get("/admin/audit")
    assert response.status_code == 401
    assert served_by_provider(response)
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    ("path", "status"),
    [("/entity/profile", 401), ("/media/avatars/nobody.png", 404)],
)
def test_entity_and_media_are_served_by_the_provider(
    proxy: httpx.Client, path: str, status: int
) -> None:
    """The self-service API asks for a token; an unknown avatar is the provider's 404."""
    response = proxy.get(path)
    assert response.status_code == status
    assert served_by_provider(response)
    assert response.json()["instance"] == path


@pytest.mark.parametrize(
    ("path", "marker"),
    [
        ("/auth/login?challenge=abc", "<title>Sign in"),
        ("/auth/", "<title>Sign in"),
        ("/console/", "<title>Console"),
        ("/console/users/42", "<title>Console"),
    ],
)
def test_frontends_are_served_under_their_prefix(
    proxy: httpx.Client, path: str, marker: str
) -> None:
    response = proxy.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert marker in response.text


@pytest.mark.parametrize("prefix", ["/auth", "/console"])
def test_frontend_assets_live_under_prefix_assets(proxy: httpx.Client, prefix: str) -> None:
    page = proxy.get(f"{prefix}/").text
    assets = re.findall(rf'(?:src|href)="({prefix}/assets/[^"]+)"', page)
    assert any(a.endswith(".js") for a in assets), page
    for asset in assets:
        response = proxy.get(asset)
        assert response.status_code == 200, asset
    missing = proxy.get(f"{prefix}/assets/does-not-exist.js")
    assert missing.status_code == 404


def test_root_redirects_to_the_console(proxy: httpx.Client) -> None:
    response = proxy.get("/")
    assert response.status_code == 302
    assert response.headers["location"] == "/console/"


@pytest.mark.parametrize(
    "path",
    ["/elsewhere", "/admin", "/console", "/api/v2/auth/login", "/static/x.js", "/favicon.ico"],
)
def test_any_other_path_is_404(proxy: httpx.Client, path: str) -> None:
    response = proxy.get(path)
    assert response.status_code == 404
    assert served_by_proxy(response)


# --- rules ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/health", "/health/live", "/health/ready", "/health/anything"])
def test_rule_3_health_is_refused_at_the_proxy(proxy: httpx.Client, path: str) -> None:
    response = proxy.get(path)
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json"])
def test_rule_4_api_description_is_404_at_the_proxy(
    proxy: httpx.Client, stack: Stack, path: str
) -> None:
    assert proxy.get(path).status_code == 404
    # ...while the provider itself (dev mode) does publish it on its own port.
    assert httpx.get(stack.service_url("token") + path).status_code == 200


def test_rule_5_plain_http_is_not_redirected_to_https(proxy: httpx.Client) -> None:
    for path in ("/.well-known/jwks.json", "/console/", "/auth/login"):
        response = proxy.get(path, headers={"X-Forwarded-Proto": "http"})
        assert response.status_code == 200, path
    location = proxy.get("/").headers["location"]
    assert not location.startswith("https:")


def test_photo_upload_body_limit_exceeds_avatar_max(proxy: httpx.Client, stack: Stack) -> None:
    avatar_max = int(stack.env["SVC_AVATAR_MAX_BYTES"])
    big = b"\0" * (avatar_max + 512 * 1024)  # above the 1 MB default, above the avatar max
    photo = proxy.put("/entity/profile/photo", content=big, headers={"Content-Type": "image/png"})
    assert photo.status_code != 413, "the proxy must let the service judge the photo size"
    assert served_by_provider(photo)
    elsewhere = proxy.post("/admin/audit", content=b"\0" * (2 * 1024 * 1024))
    assert elsewhere.status_code == 413
    assert served_by_proxy(elsewhere)
    for name in SECURITY_HEADERS:
        assert len(elsewhere.headers.get_list(name)) == 1


# --- headers and caching -------------------------------------------------------------

EVERY_KIND = [
    ("GET", "/.well-known/openid-configuration"),
    ("GET", "/.well-known/oauth-authorization-server"),
    ("GET", "/.well-known/jwks.json"),
    ("GET", "/oauth2/not-a-route"),
    ("POST", "/oauth2/token"),
    ("GET", "/api/v1/auth/challenge/x"),
    ("GET", "/admin/audit"),
    ("DELETE", "/admin/audit"),
    ("GET", "/entity/profile"),
    ("GET", "/media/avatars/x.png"),
    ("GET", "/auth/login"),
    ("GET", "/console/"),
    ("GET", "/"),
    ("GET", "/health"),
    ("GET", "/docs"),
    ("GET", "/nowhere"),
]


@pytest.mark.parametrize(("method", "path"), EVERY_KIND)
def test_every_response_carries_each_security_header_exactly_once(
    proxy: httpx.Client, method: str, path: str
) -> None:
    response = proxy.request(method, path)
    for name in SECURITY_HEADERS:
        assert len(response.headers.get_list(name)) == 1, (name, response.headers.get_list(name))
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "strict-transport-security" not in response.headers  # dev mode
    assert len(response.headers.get_list("cache-control")) == 1


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/openid-configuration",
        "/.well-known/oauth-authorization-server",
        "/.well-known/jwks.json",
    ],
)
def test_discovery_and_jwks_are_public_for_five_minutes(proxy: httpx.Client, path: str) -> None:
    cache = proxy.get(path).headers["cache-control"].replace(" ", "").split(",")
    assert sorted(cache) == ["max-age=300", "public"]


@pytest.mark.parametrize(
    "path", ["/admin/audit", "/auth/login", "/console/", "/nowhere", "/oauth2/x"]
)
def test_everything_else_is_no_store(proxy: httpx.Client, path: str) -> None:
    assert proxy.get(path).headers["cache-control"] == "no-store"


def test_upstream_down_gives_a_proxy_error_with_headers(extra_processes: Stack) -> None:
    stack = extra_processes
    # A second proxy whose upstreams point at ports nobody listens on.
    dead = Stack(
        stack.run_id,
        stack.work_dir,
        stack.db_name,
        stack.env,
        0,
        {name: 1 for name in stack.service_ports},
    )
    proxy_process = dead.start_proxy(name="deadproxy")
    stack.processes.append(proxy_process)
    stack.wait_until_up(proxy_process, "/console/")
    response = httpx.get(proxy_process.url + "/admin/audit")
    assert response.status_code == 502
    for name in SECURITY_HEADERS:
        assert len(response.headers.get_list(name)) == 1
