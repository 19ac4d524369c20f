"""SCIM played as an attacker (issue #27): one person created 50 times at once, a filter
past the limits, and the database away. Each answer is a clean SCIM error and nothing is
half-written."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.harness import infra
from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.scim.support import (
    ERROR,
    assert_scim_error,
    machine_token,
    new_user_body,
    scim_http,
)

pytestmark = pytest.mark.integration


def _people_named(stack: Stack, email: str) -> int:
    rows = query(stack, "SELECT count(*) AS n FROM users WHERE lower(email) = lower($1)", email)
    return int(rows[0]["n"])


def _token(stack: Stack) -> str:
    admin = AdminApi(stack)
    try:
        return machine_token(stack, admin)
    finally:
        admin.close()


def test_one_person_created_50_times_at_once_exists_once(stack: Stack) -> None:
    token = _token(stack)
    body = new_user_body()

    def create(_: int) -> httpx.Response:
        with scim_http(stack, token) as scim:
            return scim.post("/Users", json=body)

    with ThreadPoolExecutor(50) as pool:
        answers = list(pool.map(create, range(50)))
    statuses = sorted(a.status_code for a in answers)
    assert statuses.count(201) == 1, statuses
    assert statuses.count(409) == 49, statuses
    for refused in (a for a in answers if a.status_code == 409):
        assert refused.json()["schemas"] == [ERROR]
        assert refused.json()["scimType"] == "uniqueness"
    assert _people_named(stack, body["emails"][0]["value"]) == 1


def test_a_filter_past_the_limits_is_invalid_filter(stack: Stack) -> None:
    token = _token(stack)
    deep = "(" * 5000 + 'userName eq "x"' + ")" * 5000
    many = " or ".join(f'userName eq "u{i}"' for i in range(200))
    with scim_http(stack, token) as scim:
        for text in (deep, many, 'userName eq "\\u0000"', "userName zz 1"):
            answer = scim.post(
                "/Users/.search",
                json={
                    "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
                    "filter": text,
                },
            )
            assert_scim_error(answer, 400, "invalidFilter")


def test_the_database_away_is_a_503_and_writes_nothing(extra_processes: Stack) -> None:
    stack = extra_processes
    token = _token(stack)
    closed = f"postgresql+asyncpg://postgres@127.0.0.1:{infra.closed_port()}/x"
    service = stack.start_service("admin", {"SVC_DATABASE_URL": closed})
    stack.wait_until_up(service, "/health/live")
    body: dict[str, Any] = new_user_body()
    with httpx.Client(
        base_url=service.url + "/scim/v2", headers={"Authorization": f"Bearer {token}"}, timeout=20
    ) as scim:
        answer = scim.post("/Users", json=body)
    assert answer.status_code == 503, answer.text
    assert answer.headers.get("retry-after")
    assert _people_named(stack, body["emails"][0]["value"]) == 0
