"""Attack 17 (last clause): a Redis outage turned a bad bearer token into a 500.

The bearer guard of ``/admin/*`` and ``/entity/*`` counts every failed authentication
against a per-address limit kept in Redis. With Redis unreachable that count raised, so a
missing or forged token was answered 500 instead of 401: an outage of the rate-limit store
turned every anonymous probe into an "internal error" (and a stack trace in the log),
and a client could no longer tell "your token is bad" from "the server is broken".

What must hold now: the limiter fails open (a log line says the limit was not applied), so
a missing or bad token is still 401 with ``WWW-Authenticate: Bearer``; a valid token,
whose revocation cannot be checked without Redis, is never a 500 either (200, or 503 with
``Retry-After``). Each service here is a real extra process whose Redis address is a port
where nothing listens.
"""

from __future__ import annotations

import httpx
import pytest

from tests.harness import infra, tokens
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration

ROUTES = {"admin": "/admin/audit", "entity": "/entity/profile"}
SCOPES = {"admin": ["idp:audit:read"], "entity": ["idp:account:read"]}


def start_without_redis(stack: Stack, service: str) -> str:
    process = stack.start_service(
        service, {"SVC_REDIS_URL": f"redis://127.0.0.1:{infra.closed_port()}/0"}
    )
    stack.wait_until_up(process, "/health/live")
    return process.url


@pytest.mark.parametrize("service", sorted(ROUTES))
def test_a_bad_token_is_401_while_redis_is_down(extra_processes: Stack, service: str) -> None:
    url = start_without_redis(extra_processes, service)
    path = ROUTES[service]
    with httpx.Client(base_url=url, timeout=15) as client:
        for authorization in ("Bearer not.a.token", "Bearer", None):
            headers = {"Authorization": authorization} if authorization else {}
            answer = client.get(path, headers=headers)
            assert answer.status_code == 401, (authorization, answer.status_code, answer.text)
            assert answer.headers["content-type"] == "application/problem+json"
            assert answer.headers["www-authenticate"].startswith("Bearer ")
        # A token signed by the provider's key: the revocation list cannot be read, which is
        # a dependency failure (503 with Retry-After) or, where nothing needs it, a success.
        token = tokens.mint(extra_processes.key_dir, issuer=extra_processes.issuer,
                            scopes=SCOPES[service])  # fmt: skip
        valid = client.get(path, headers={"Authorization": f"Bearer {token}"})
        assert valid.status_code != 500, valid.text
        if valid.status_code == 503:
            assert valid.headers["retry-after"]
