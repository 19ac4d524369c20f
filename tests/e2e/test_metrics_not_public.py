"""``/metrics`` is for the operator's scraper on each service's own port: the public proxy
refuses it, as it refuses ``/health*`` (issue 22; docs/operations.md "Metrics")."""

from __future__ import annotations

import httpx
import pytest

from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("path", ["/metrics", "/metrics/", "/metrics/anything", "/metrics?x=1"])
def test_metrics_are_refused_at_the_proxy(proxy: httpx.Client, path: str) -> None:
    response = proxy.get(path)
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "proxy.forbidden"
    assert "instance" not in body  # nginx's own answer: the request never reached a service
    assert "idp_" not in response.text


def test_the_same_path_answers_on_the_service_port(stack: Stack) -> None:
    response = httpx.get(stack.service_url("token") + "/metrics")
    assert response.status_code == 200
    assert "idp_http_requests_total" in response.text
