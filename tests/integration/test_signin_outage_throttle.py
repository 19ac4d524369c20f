"""A password that could not be checked (the database was down) is no failed attempt.

Found by ``make chaos`` (PostgreSQL stopped): every sign-in attempt is counted as a
failure before it is evaluated and the counter is cleared only by a success, so the
503s of an outage counted as wrong passwords. A person who tried five times while the
database was down was then refused with 429 and a growing delay (1 s, 2 s, 4 s, ... up
to 15 minutes) after it came back, with the right password: no recovery without waiting.
Nothing was evaluated in those attempts, so giving them back lets no guess through.
"""

from __future__ import annotations

import base64

import pytest

from tests.harness import infra
from tests.harness.faces import face
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    new_challenge,
    post,
    signin_client,
)

pytestmark = pytest.mark.integration


def test_attempts_that_met_a_database_outage_do_not_throttle_the_person(
    extra_processes: Stack,
) -> None:
    stack = extra_processes
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    without_database = stack.start_service(
        "authui-api",
        {"SVC_DATABASE_URL": f"postgresql+asyncpg://postgres@127.0.0.1:{infra.closed_port()}/x"},
    )
    stack.wait_until_up(without_database, "/health/live")
    body = {"email": person.email, "password": person.password}

    with signin_client(without_database.url) as client:
        answers = [
            post(client, "/login", {**body, "challenge": new_challenge(stack, rp)})
            for _ in range(7)
        ]
    assert [a.status_code for a in answers] == [503] * 7, [a.text for a in answers]
    assert all(a.headers.get("retry-after") for a in answers)

    with signin_client(stack.service_url("authui-api")) as client:
        back = post(client, "/login", {**body, "challenge": new_challenge(stack, rp)})
    assert back.status_code == 200, back.text
    assert back.json()["next"] == "done"


@pytest.mark.face
def test_face_attempts_that_met_a_database_outage_do_not_throttle_the_person(
    extra_processes: Stack,
) -> None:
    """The same for a face standing in for the password: the face was analysed, but the
    person's templates could not be read, so nothing was compared."""
    stack = extra_processes
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    without_database = stack.start_service(
        "authui-api",
        {"SVC_DATABASE_URL": f"postgresql+asyncpg://postgres@127.0.0.1:{infra.closed_port()}/x"},
    )
    stack.wait_until_up(without_database, "/health/live")
    image = base64.b64encode(face("obama1.jpg")).decode()

    with signin_client(without_database.url) as client:
        answers = [
            post(
                client,
                "/biometric",
                {"challenge": new_challenge(stack, rp), "email": person.email, "image": image},
                timeout=60,
            )
            for _ in range(7)
        ]
    assert [a.status_code for a in answers] == [503] * 7, [a.text for a in answers]

    body = {"email": person.email, "password": person.password}
    with signin_client(stack.service_url("authui-api")) as client:
        back = post(client, "/login", {**body, "challenge": new_challenge(stack, rp)})
    assert back.status_code == 200, back.text
    assert back.json()["next"] == "done"
