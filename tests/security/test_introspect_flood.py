"""Attack 11: /oauth2/revoke and /oauth2/introspect had no rate limit, and each failed
client authentication wrote an audit row.

Anyone can post a made-up ``client_id`` and secret to ``/oauth2/introspect`` or
``/oauth2/revoke`` as fast as the service answers: nothing limited the address (the token
endpoint's ``TOKEN_PER_IP`` did not cover them), so the endpoints could be used to guess
client secrets at full speed, and every failure wrote one ``token.client_auth_failed``
row, so the same loop grew the audit table without bound.

What must hold now: the two endpoints are limited per caller address like the token
endpoint (``SVC_TOKEN_PER_IP`` a minute, then 429 ``temporarily_unavailable`` with
``Retry-After``), and repeated identical failures (same action, client, address and
reason) are written once per window, the next row carrying how many were left out.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from tests.harness import records
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration

#: SVC_TOKEN_PER_IP of the test stack (the default).
PER_MINUTE = 120


def _failures(stack: Stack, client_id: str) -> list[dict[str, Any]]:
    """The ``token.client_auth_failed`` rows of ``client_id``, oldest first."""
    rows = records.query(
        stack,
        "SELECT ip, detail FROM audit_events WHERE action = 'token.client_auth_failed' "
        "AND actor = $1 ORDER BY id",
        client_id,
    )
    return [{"ip": row["ip"], "detail": json.loads(str(row["detail"]))} for row in rows]


def _stranger() -> tf.AppClient:
    return tf.AppClient(f"nobody-{uuid.uuid4().hex[:8]}", "wrong-secret", uuid.uuid4())


@pytest.mark.parametrize("path", ["/oauth2/introspect", "/oauth2/revoke"])
def test_failed_client_authentications_are_limited_and_coalesced(stack: Stack, path: str) -> None:
    stranger = _stranger()
    with httpx.Client(
        base_url=stack.service_url("token"),
        timeout=15,
        headers={"X-Forwarded-For": tf.fresh_address()},
    ) as http:
        answers = [
            http.post(path, data={"token": "x"}, headers=stranger.basic()) for _ in range(200)
        ]
    codes = [answer.status_code for answer in answers]
    rows = _failures(stack, stranger.client_id)
    assert (429 in codes, len(rows) < 10) == (True, True), (
        f"200 failed authentications at {path}: {codes.count(401)} x 401, "
        f"{codes.count(429)} x 429, {len(rows)} audit rows"
    )
    assert codes[:PER_MINUTE] == [401] * PER_MINUTE
    assert set(codes[PER_MINUTE:]) == {429}
    refused = answers[-1]
    assert refused.json()["error"] == "temporarily_unavailable"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.headers["cache-control"] == "no-store"


def test_different_failures_keep_their_own_rows(stack: Stack) -> None:
    """Coalescing merges only identical failures: another client, another address or
    another reason is written at once."""
    app = tf.create_client(stack)
    address = tf.fresh_address()
    with httpx.Client(
        base_url=stack.service_url("token"), timeout=15, headers={"X-Forwarded-For": address}
    ) as http:
        for _ in range(3):
            assert (
                http.post(
                    "/oauth2/introspect", data={"token": "x"}, headers=app.basic("wrong")
                ).status_code
                == 401
            )
        missing = http.post("/oauth2/introspect", data={"token": "x", "client_id": app.client_id})
        assert missing.status_code == 401
    with httpx.Client(
        base_url=stack.service_url("token"),
        timeout=15,
        headers={"X-Forwarded-For": tf.fresh_address()},
    ) as other:
        other.post("/oauth2/introspect", data={"token": "x"}, headers=app.basic("wrong"))
    rows = _failures(stack, app.client_id)
    reasons = sorted((row["ip"] == address, row["detail"]["reason"]) for row in rows)
    assert reasons == [
        (False, "client authentication failed"),
        (True, "client authentication failed"),
        (True, "client secret required"),
    ], rows


def test_a_client_that_authenticates_is_not_limited_by_a_stranger(stack: Stack) -> None:
    """The limit is per address: one address's flood leaves the others alone."""
    app = tf.create_client(stack)
    stranger = _stranger()
    with httpx.Client(
        base_url=stack.service_url("token"),
        timeout=15,
        headers={"X-Forwarded-For": tf.fresh_address()},
    ) as noisy:
        for _ in range(PER_MINUTE + 1):
            noisy.post("/oauth2/revoke", data={"token": "x"}, headers=stranger.basic())
        assert noisy.post("/oauth2/revoke", data={"token": "x"}).status_code == 429
    with httpx.Client(
        base_url=stack.service_url("token"),
        timeout=15,
        headers={"X-Forwarded-For": tf.fresh_address()},
    ) as quiet:
        assert (
            quiet.post("/oauth2/revoke", data={"token": "x"}, headers=app.basic()).status_code
            == 200
        )
