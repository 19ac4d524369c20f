"""Issue #28's inputs played as an attacker: the provider's brand written 50 times at once,
oversized and malformed values, and the database away halfway (the admin service answers
503 with Retry-After, and nothing is written)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.harness import infra
from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi

pytestmark = pytest.mark.integration

CLEARED: dict[str, Any] = {
    "productName": None,
    "primaryColor": None,
    "termsUri": None,
    "privacyUri": None,
}


def _provider_rows(stack: Stack) -> list[dict[str, Any]]:
    return query(stack, "SELECT product_name, primary_color FROM brands WHERE client_pk IS NULL")


def test_the_brand_written_50_times_at_once_is_one_row_holding_one_write(stack: Stack) -> None:
    admin = AdminApi(stack)
    names = [f"Brand {n}" for n in range(50)]
    try:
        with ThreadPoolExecutor(max_workers=50) as pool:
            answers = list(
                pool.map(
                    lambda name: admin.put(
                        "/admin/branding", json={**CLEARED, "productName": name}
                    ),
                    names,
                )
            )
        assert sorted(a.status_code for a in answers) == [200] * 50, [a.text for a in answers]
        rows = _provider_rows(stack)
        assert len(rows) == 1
        assert rows[0]["product_name"] in names
    finally:
        admin.put("/admin/branding", json=CLEARED)
        admin.close()


def test_oversized_and_malformed_values_are_422_and_write_nothing(stack: Stack) -> None:
    admin = AdminApi(stack)
    try:
        before = _provider_rows(stack)
        for body, field in [
            ({"productName": "x" * 100_000}, "productName"),
            ({"primaryColor": "#12345"}, "primaryColor"),
            ({"primaryColor": "red; background:url(x)"}, "primaryColor"),
            ({"termsUri": "javascript:alert(1)"}, "termsUri"),
            ({"privacyUri": "https://" + "a" * 3000 + ".example"}, "privacyUri"),
        ]:
            answer = admin.put("/admin/branding", json={**CLEARED, **body})
            assert answer.status_code == 422, (body, answer.text)
            assert answer.headers["content-type"].startswith("application/problem+json")
            assert field in {e["field"] for e in answer.json()["errors"]}, answer.text
        assert _provider_rows(stack) == before
    finally:
        admin.close()


def test_the_database_away_is_a_503_and_writes_nothing(extra_processes: Stack) -> None:
    stack = extra_processes
    before = _provider_rows(stack)
    closed = f"postgresql+asyncpg://postgres@127.0.0.1:{infra.closed_port()}/x"
    service = stack.start_service("admin", {"SVC_DATABASE_URL": closed})
    stack.wait_until_up(service, "/health/live")
    admin = AdminApi(stack, base_url=service.url)
    try:
        write = admin.put("/admin/branding", json={**CLEARED, "productName": "Never stored"})
        read = admin.get("/admin/activity")
    finally:
        admin.close()
    for answer in (write, read):
        assert answer.status_code == 503, answer.text
        assert answer.headers.get("retry-after")
    assert _provider_rows(stack) == before
