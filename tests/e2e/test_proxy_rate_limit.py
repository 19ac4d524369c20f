"""The proxy's coarse per-address limit on /oauth2/token, /oauth2/par (RFC 9126) and
/api/v1/auth/* (contract §8).

A second proxy in front of the same services runs with a low rate so the limit is
reached in a handful of requests; the run's main proxy keeps its production-like rate.
"""

from __future__ import annotations

import httpx
import pytest

from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e
BURST = 3


@pytest.fixture
def strict_proxy(extra_processes: Stack) -> str:
    process = extra_processes.start_proxy(
        name="strictproxy",
        extra_args=("--signin-rate", "1r/m", "--signin-burst", str(BURST), "--retry-after", "60"),
    )
    extra_processes.wait_until_up(process, "/console/")
    return process.url


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/oauth2/token"), ("POST", "/oauth2/par"), ("POST", "/api/v1/auth/login")],
)
def test_limited_paths_answer_429_with_retry_after(
    strict_proxy: str, method: str, path: str
) -> None:
    transport = httpx.HTTPTransport(local_address="127.0.0.5" if "oauth2" in path else "127.0.0.6")
    with httpx.Client(base_url=strict_proxy, transport=transport) as client:
        codes = [client.request(method, path).status_code for _ in range(BURST + 3)]
        assert 429 not in codes[: BURST + 1], codes  # the first request plus the burst pass
        assert codes[-1] == 429, codes
        refused = client.request(method, path)
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "60"
    assert refused.headers["content-type"] == "application/problem+json"
    for name in ("content-security-policy", "x-content-type-options", "referrer-policy"):
        assert len(refused.headers.get_list(name)) == 1
    # Issue #27: a browser application on another origin can read the token endpoint's 429.
    cors = "*" if path == "/oauth2/token" else None
    assert refused.headers.get("access-control-allow-origin") == cors


def test_the_limit_is_per_address(strict_proxy: str) -> None:
    noisy = httpx.Client(
        base_url=strict_proxy, transport=httpx.HTTPTransport(local_address="127.0.0.7")
    )
    quiet = httpx.Client(
        base_url=strict_proxy, transport=httpx.HTTPTransport(local_address="127.0.0.8")
    )
    with noisy, quiet:
        for _ in range(BURST + 3):
            noisy.post("/oauth2/token")
        assert noisy.post("/oauth2/token").status_code == 429
        assert quiet.post("/oauth2/token").status_code != 429


def test_other_paths_are_not_limited(strict_proxy: str) -> None:
    transport = httpx.HTTPTransport(local_address="127.0.0.9")
    with httpx.Client(base_url=strict_proxy, transport=transport) as client:
        codes = {client.get("/.well-known/jwks.json").status_code for _ in range(BURST + 5)}
        codes |= {client.get("/admin/audit").status_code for _ in range(BURST + 2)}
    assert 429 not in codes
