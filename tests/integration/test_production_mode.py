"""``SVC_ENV=prod`` (contract §5 settings table, part 1, §9 rule 4): HSTS on every response,
and no interactive API description (``/docs``, ``/redoc``, ``/openapi.json``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.harness.stack import ROOT, Stack

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def prod_token_service(stack: Stack) -> Iterator[str]:
    """One token service in prod mode for the module's read-only requests (a start costs
    about 4 s; eight of them were half a minute of the suite)."""
    with stack.extra_service("token", {"SVC_ENV": "prod"}) as url:
        yield url


@pytest.mark.parametrize("path", ["/docs", "/docs/", "/redoc", "/openapi.json", "/schema"])
def test_api_description_is_withheld(prod_token_service: str, path: str) -> None:
    assert httpx.get(prod_token_service + path).status_code == 404


@pytest.mark.parametrize("path", ["/.well-known/jwks.json", "/health", "/nowhere"])
def test_hsts_on_every_response(prod_token_service: str, path: str) -> None:
    response = httpx.get(prod_token_service + path)
    assert response.headers.get_list("strict-transport-security") == [
        "max-age=63072000; includeSubDomains"
    ]
    assert len(response.headers.get_list("content-security-policy")) == 1


def test_dev_mode_publishes_the_description_without_hsts(stack: Stack) -> None:
    base = stack.service_url("token")
    spec = httpx.get(base + "/openapi.json")
    assert spec.status_code == 200
    assert "/.well-known/jwks.json" in spec.json()["paths"]
    assert httpx.get(base + "/docs").status_code == 200
    assert "strict-transport-security" not in spec.headers


def test_admin_openapi_names_the_permission_of_each_route(stack: Stack) -> None:
    spec = httpx.get(stack.service_url("admin") + "/openapi.json").json()
    operation = spec["paths"]["/admin/audit"]["get"]
    assert operation["security"] == [{"BearerToken": ["idp:audit:read"]}]
    assert spec["components"]["securitySchemes"]["BearerToken"]["scheme"] == "bearer"


def test_proxy_in_prod_mode_sends_hsts_on_its_own_responses(tmp_path) -> None:
    run_dir = tmp_path / "prodproxy"
    subprocess.run(
        [sys.executable, str(ROOT / "proxy/render.py"), "--run-dir", str(run_dir), "--prod"],
        check=True,
        capture_output=True,
    )
    headers = (run_dir / "security_headers.conf").read_text()
    assert (
        'add_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always;'
        in headers
    )
