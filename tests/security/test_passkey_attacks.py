"""Passkey sign-in under attack (issue #26, check 4): one assertion sent 50 times at once,
the database or Redis gone while a passkey signs in, bodies that are too big or not what
they claim. Each answer stays one clean 4xx or a 503 with ``Retry-After``, and nothing is
half-written: no session, no counter moved, no use recorded.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.harness import infra
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    new_challenge,
    post,
    sessions_of,
    signin_client,
)
from tests.integration.test_signin_passkey import (
    answer,
    authenticator,
    options,
    register_passkey,
    stored,
)

pytestmark = pytest.mark.integration
#: An authui-api of the test's own with a per-address limit that 50 requests at once from
#: one address do not reach (the attack is the replay, not the flood).
UNLIMITED = {"SVC_TOKEN_PER_IP": "100000"}


def test_one_assertion_sent_50_times_at_once_signs_in_once(extra_processes: Stack) -> None:
    stack = extra_processes
    service = stack.start_service("authui-api", UNLIMITED)
    stack.wait_until_up(service)
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, person, device)
    challenge = new_challenge(stack, rp)
    with signin_client(service.url) as client:
        response = device.get(options(client, challenge))

    def send(_: int) -> int:
        with signin_client(service.url) as client:
            return answer(client, challenge, response).status_code

    with ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(send, range(50)))
    assert statuses.count(200) == 1, statuses
    # The others: the ceremony was taken (401), or the sign-in had moved on (409).
    assert set(statuses) - {200} <= {401, 409}, statuses
    assert len(sessions_of(stack, person.id)) == 1
    assert stored(stack, credential)[0] == 1  # the counter moved once


def test_a_database_outage_is_a_503_and_writes_nothing(extra_processes: Stack) -> None:
    stack = extra_processes
    closed = f"postgresql+asyncpg://postgres@127.0.0.1:{infra.closed_port()}/x"
    service = stack.start_service("authui-api", {**UNLIMITED, "SVC_DATABASE_URL": closed})
    stack.wait_until_up(service, "/health/live")
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, person, device)
    challenge = new_challenge(stack, rp)
    with signin_client(service.url) as client:
        offered = options(client, challenge)  # a discoverable ceremony needs no database
        refused = answer(client, challenge, device.get(offered))
    assert refused.status_code == 503, refused.text
    assert refused.headers.get("retry-after")
    assert "set-cookie" not in refused.headers
    assert sessions_of(stack, person.id) == []
    assert stored(stack, credential)[:2] == (0, None)  # no counter, no last use
    # Back with the database: the person asks for new options and signs in.
    with signin_client(stack.service_url("authui-api")) as client:
        accepted = answer(client, challenge, device.get(options(client, challenge)))
    assert accepted.status_code == 200, accepted.text


def test_a_redis_outage_is_a_503(extra_processes: Stack) -> None:
    stack = extra_processes
    closed = f"redis://127.0.0.1:{infra.closed_port()}/0"
    service = stack.start_service("authui-api", {**UNLIMITED, "SVC_REDIS_URL": closed})
    stack.wait_until_up(service, "/health/live")
    with signin_client(service.url) as client:
        asked = post(client, "/passkey/options", {"challenge": "x" * 32})
        answered = post(client, "/passkey", {"challenge": "x" * 32, "credential": {}})
    for response in (asked, answered):
        assert response.status_code == 503, response.text
        assert response.headers.get("retry-after")


@pytest.mark.parametrize(
    ("credential", "status"),
    [
        ("not an object", 422),
        ([1, 2, 3], 422),
        ({}, 401),
        ({"id": "!!", "response": {"clientDataJSON": "%%%"}}, 401),
        ({"id": "a" * 5000, "rawId": "a" * 5000, "response": "x"}, 401),
    ],
)
def test_malformed_credentials_are_refused_cleanly(
    stack: Stack, credential: Any, status: int
) -> None:
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp)
    with signin_client(stack.service_url("authui-api")) as client:
        refused = post(client, "/passkey", {"challenge": challenge, "credential": credential})
    assert refused.status_code == status, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    if status == 422:  # not an object: the field is named
        assert [e["field"] for e in refused.json()["errors"]] == ["credential"]


def test_an_oversized_body_is_refused_before_it_is_read(stack: Stack) -> None:
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp)
    padding = "a" * (80 * 1024)
    with signin_client(stack.service_url("authui-api")) as client:
        refused = post(client, "/passkey", {"challenge": challenge, "credential": {"pad": padding}})
    assert refused.status_code == 413, refused.text
