"""Pushed authorization requests (RFC 9126) live in Redis: without it, ``/oauth2/par`` and
the use of a ``request_uri`` at ``/oauth2/authorize`` answer 503 with ``Retry-After``,
never 500; once Redis is back, a new push works.

A token service of its own runs against a Redis the test stops and starts
(``test_refresh_redis_failure``'s harness).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.harness import records
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.security.test_refresh_redis_failure import OwnRedis, _start_redis

pytestmark = pytest.mark.integration

URN = "urn:ietf:params:oauth:request_uri:"


@pytest.fixture
def own_redis(extra_processes: Stack) -> Iterator[tuple[httpx.Client, OwnRedis]]:
    own = _start_redis(extra_processes)
    process = extra_processes.start_service("token", {"SVC_REDIS_URL": own.url})
    extra_processes.wait_until_up(process)
    headers = {"X-Forwarded-For": tf.fresh_address()}
    with httpx.Client(base_url=process.url, timeout=30, headers=headers) as http:
        yield http, own
    own.client.close()


def test_without_redis_par_and_its_use_answer_503(
    stack: Stack, own_redis: tuple[httpx.Client, OwnRedis]
) -> None:
    http, redis = own_redis
    app = records.create_client(stack)
    assert app.secret is not None
    pushed = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": app.redirect_uri,
        "scope": "openid",
    }
    auth = (app.client_id, app.secret)
    assert http.post("/oauth2/par", data=pushed, auth=auth).status_code == 201
    redis.refuse_writes()
    full = http.post("/oauth2/par", data=pushed, auth=auth)
    redis.accept_writes()
    assert full.status_code == 503, full.text
    assert full.json()["error"] == "temporarily_unavailable"
    assert int(full.headers["retry-after"]) >= 1

    redis.process.stop()
    gone = http.post("/oauth2/par", data=pushed, auth=auth)
    assert gone.status_code == 503, gone.text
    assert int(gone.headers["retry-after"]) >= 1
    use = http.get(
        "/oauth2/authorize", params={"client_id": app.client_id, "request_uri": URN + "A" * 43}
    )
    assert use.status_code == 503, use.text
    assert int(use.headers["retry-after"]) >= 1
