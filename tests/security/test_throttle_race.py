"""Attack 3: the per-account throttle's race and expiry.

The throttle checked the failure count and recorded a failure in two separate Redis
steps, so wrong passwords sent in parallel all passed the check before any was recorded:
a burst of guesses was evaluated however many the limit allowed. And the longest delay
(15 minutes) equalled the counter's lifetime, so when the delay ended the counter was gone
and the free attempts came back. Check and record must be one atomic step, and the
failure history must outlive the longest delay.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from redis import Redis

from tests.harness import infra
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import (
    JSON_HEADERS,
    create_client,
    create_person,
    fresh_address,
    new_challenge,
)

pytestmark = pytest.mark.integration
PARALLEL = 24
FREE_FAILURES = 5
LONGEST_DELAY_SECONDS = 15 * 60


def test_parallel_wrong_passwords_are_evaluated_at_most_the_allowed_number(stack: Stack) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    challenges = [new_challenge(stack, rp) for _ in range(PARALLEL)]
    base = stack.service_url("authui-api")

    def guess(challenge: str) -> int:
        headers = {**JSON_HEADERS, "X-Forwarded-For": fresh_address()}
        body = {"challenge": challenge, "email": person.email, "password": "wrong guess 1"}
        with httpx.Client(base_url=base, timeout=60) as client:
            return client.post("/api/v1/auth/login", json=body, headers=headers).status_code

    started = time.monotonic()
    with ThreadPoolExecutor(PARALLEL) as pool:
        statuses = list(pool.map(guess, challenges))
    allowed = allowed_within(time.monotonic() - started)
    evaluated = statuses.count(401)
    assert statuses.count(401) + statuses.count(429) == PARALLEL, statuses
    assert evaluated <= allowed, f"{evaluated} wrong passwords were evaluated: {statuses}"


def allowed_within(seconds: float) -> int:
    """The most guesses the throttle may evaluate in ``seconds``: the free ones, then one
    more each time a delay (1 s, 2 s, 4 s, ...) has passed. On a loaded machine the burst
    spreads over seconds, and a guess after the first delay is rightly evaluated; the
    race this test plays evaluated all 24 at once."""
    allowed, delay = FREE_FAILURES, 1.0
    while seconds >= delay:
        allowed, seconds, delay = allowed + 1, seconds - delay, delay * 2
    return allowed


def test_the_failure_history_outlives_the_longest_delay(stack: Stack) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    with httpx.Client(base_url=stack.service_url("authui-api"), timeout=60) as client:
        for _ in range(FREE_FAILURES):
            client.post(
                "/api/v1/auth/login",
                json={
                    "challenge": new_challenge(stack, rp),
                    "email": person.email,
                    "password": "no",
                },
                headers={"X-Forwarded-For": fresh_address()},
            )
    digest = hashlib.sha256(person.email.lower().encode()).hexdigest()[:32]
    redis = Redis.from_url(infra.REDIS_URL)
    try:
        ttl = redis.ttl(f"{stack.env['SVC_REDIS_PREFIX']}signin-fail:{digest}")
    finally:
        redis.close()
    assert ttl > 2 * LONGEST_DELAY_SECONDS, f"the counter lives {ttl} s"
