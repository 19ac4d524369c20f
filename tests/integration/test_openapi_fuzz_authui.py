"""Property-based run over the sign-in API's OpenAPI document (issue #21): no 5xx and every
answer matches its declared schema (:mod:`tests.harness.fuzz`).

A sign-in challenge exists only after ``/oauth2/authorize`` (the token service) started
one, so the run is given live ones, some at the password step and some at the consent
step, with the person's real address and password; the generator uses them for a share
of its requests (the rest stay random: unknown challenges, wrong passwords, bad JSON).
The reset requests get the person's address too.

It runs on the shared stack's sign-in API, each operation from a caller address of its
own (``X-Forwarded-For``), so that its wrong passwords and codes fill limits no other test
uses (past ``SVC_AUTH_FAIL_PER_IP`` an operation is answered 429, which its own tests
cover). It changes only its own person (who may end up locked out) and challenges. No
stateful phase: no operation of this API creates what another reads (challenges come
from the token service), so there are no links to follow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness import records
from tests.harness.fuzz import Operation, Operations, assert_clean, run_schemathesis
from tests.harness.oidc import Authorization, Browser, query_of
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration

MAX_EXAMPLES = 15
STEPS = ("login", "totp", "consent", "biometric", "password-reset", "password-reset/confirm")


def _challenge(browser: Browser, app: records.TestClient) -> str:
    answer = browser.authorize(Authorization(app))
    assert answer.status_code in (302, 303), answer.text
    return query_of(answer.headers["location"])["challenge"]


def authui_operations(stack: Stack) -> Operations:
    app = records.create_client(stack)
    person = records.create_user(stack)
    with Browser(stack) as browser:
        at_password = [_challenge(browser, app) for _ in range(4)]
        at_consent = [_challenge(browser, app) for _ in range(2)]
        for challenge in at_consent:
            step = browser.post(
                "/api/v1/auth/login",
                json={"challenge": challenge, "email": person.email, "password": person.password},
            )
            assert step.json()["next"] == "consent", step.text
    challenges = [*at_password, *at_consent]
    values = {
        "body.challenge": challenges,
        "body.email": [person.email],
        "body.password": [person.password],
    }
    read = Operation(
        "^/api/v1/auth/challenge/",
        headers={"X-Forwarded-For": "198.18.22.1"},
        values={"path.challenge_id": challenges},
    )
    steps = [
        Operation(
            f"^/api/v1/auth/{step}$", headers={"X-Forwarded-For": f"198.18.22.{n}"}, values=values
        )
        for n, step in enumerate(STEPS, start=2)
    ]
    return Operations([read, *steps])


def test_no_server_error_and_every_answer_matches_its_schema(stack: Stack, tmp_path: Path) -> None:
    run = run_schemathesis(
        stack.service_url("authui-api"),
        None,
        tmp_path,
        max_examples=MAX_EXAMPLES,
        phases=("examples", "coverage", "fuzzing"),
        operations=authui_operations(stack),
        address=None,
    )
    assert_clean(run)
