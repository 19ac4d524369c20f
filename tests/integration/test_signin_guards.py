"""Cross-site posts are refused (docs/design.md "Wire contracts"): JSON only (415), and the
``Origin`` must be the issuer's (or an allowed admin origin) when a browser sends one."""

from __future__ import annotations

import pytest

from tests.harness.stack import Stack
from tests.integration.signin_fixtures import signin_client

pytestmark = pytest.mark.integration
BODY = {"challenge": "no-such-challenge", "email": "a@example.com", "password": "x"}
ROUTES = ["/login", "/totp", "/consent", "/password-reset", "/password-reset/confirm"]


@pytest.mark.parametrize("path", ROUTES)
def test_a_form_post_is_refused_with_415(stack: Stack, path: str) -> None:
    with signin_client(stack.service_url("authui-api")) as client:
        answer = client.post(
            "/api/v1/auth" + path,
            content="challenge=x&email=a%40b.c",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        plain = client.post(
            "/api/v1/auth" + path, content="{}", headers={"Content-Type": "text/plain"}
        )
    assert answer.status_code == 415
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "auth.unsupported_media_type"
    assert plain.status_code == 415


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "null", "http://127.0.0.1:1", "http://localhost:8080"]
)
def test_a_foreign_origin_is_refused_with_403(stack: Stack, origin: str) -> None:
    with signin_client(stack.service_url("authui-api")) as client:
        answer = client.post("/api/v1/auth/login", json=BODY, headers={"Origin": origin})
    assert answer.status_code == 403
    assert answer.json()["code"] == "auth.cross_site"


def test_the_issuers_origin_and_no_origin_pass(stack: Stack) -> None:
    with signin_client(stack.service_url("authui-api")) as client:
        same = client.post("/api/v1/auth/login", json=BODY, headers={"Origin": stack.issuer})
        none = client.post("/api/v1/auth/login", json=BODY)
        charset = client.post(
            "/api/v1/auth/login",
            content=b'{"challenge": "c", "email": "a@b.c", "password": "x"}',
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
    assert same.status_code == none.status_code == charset.status_code == 404


def test_an_allowed_admin_origin_passes(extra_processes: Stack) -> None:
    process = extra_processes.start_service(
        "authui-api", {"SVC_ALLOWED_ADMIN_ORIGINS": "https://console.example.com"}
    )
    extra_processes.wait_until_up(process)
    with signin_client(process.url) as client:
        allowed = client.post(
            "/api/v1/auth/login", json=BODY, headers={"Origin": "https://console.example.com"}
        )
        refused = client.post(
            "/api/v1/auth/login", json=BODY, headers={"Origin": "https://other.example.com"}
        )
    assert (allowed.status_code, refused.status_code) == (404, 403)


def test_malformed_json_is_a_problem(stack: Stack) -> None:
    with signin_client(stack.service_url("authui-api")) as client:
        answer = client.post(
            "/api/v1/auth/login", content=b"{not json", headers={"Content-Type": "application/json"}
        )
        missing = client.post("/api/v1/auth/login", json={"challenge": "c"})
    assert answer.status_code in (400, 422)
    assert answer.headers["content-type"] == "application/problem+json"
    assert missing.status_code in (400, 422)
    assert missing.headers["content-type"] == "application/problem+json"
