"""100 concurrent refreshes of one refresh token (issue 21), against the stack's token
service: exactly one wins a new token, the 99 others are ``invalid_grant``.

The rule (docs/decisions.md "Concurrent refreshes of one token (issue 21)"): a concurrent
loser is a reuse. The losers wait on the row lock of the spent token until the winner
commits, then find it spent, so the family is revoked every time, never depending on
timing: the winner's new refresh token and its access token are refused afterwards, and
one ``token.refresh_reused`` audit row (at least) names the family.
"""

from __future__ import annotations

from collections.abc import Awaitable

import httpx
import pytest

from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.races.support import at_once, no_server_error, oauth_error, statuses

# many requests at once, each holding a database connection: runs alone (scripts/test.sh)
pytestmark = [pytest.mark.integration, pytest.mark.alone]
REFRESHES = 100


def _first_tokens(token_url: str, stack: Stack, app: tf.AppClient) -> dict[str, str]:
    person = tf.create_person(stack)
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(stack, app, person, challenge=challenge)
    with httpx.Client(base_url=token_url, timeout=30) as http:
        http.headers["X-Forwarded-For"] = tf.fresh_address()
        answer = tf.exchange(http, app, code, verifier=verifier)
    assert answer.status_code == 200, answer.text
    body: dict[str, str] = answer.json()
    return body


def test_one_of_a_hundred_concurrent_refreshes_wins_and_the_family_is_revoked(
    stack: Stack,
) -> None:
    token_url = stack.service_url("token")
    app = tf.create_client(stack)
    first = _first_tokens(token_url, stack, app)
    form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}

    def refresh(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        # each request from an address of its own: the per-address limits stay out of it
        headers = {**app.basic(), "X-Forwarded-For": tf.fresh_address()}
        return client.post(token_url + "/oauth2/token", data=form, headers=headers)

    answers = at_once([refresh] * REFRESHES)
    no_server_error(answers)
    assert statuses(answers) == [200] + [400] * (REFRESHES - 1)
    (won,) = [a.json() for a in answers if a.status_code == 200]
    assert won["refresh_token"] != first["refresh_token"]
    for lost in (a for a in answers if a.status_code == 400):
        assert oauth_error(lost)["error"] == "invalid_grant"

    family = query(
        stack,
        "SELECT family_id, spent_at IS NOT NULL AS spent, revoked_at IS NOT NULL AS revoked"
        " FROM refresh_tokens WHERE client_pk = $1",
        app.pk,
    )
    assert len(family) == 2, family  # the first token and the winner's: no other successor
    assert all(row["revoked"] for row in family), family
    assert sum(bool(row["spent"]) for row in family) == 1
    reused = query(
        stack,
        "SELECT count(*) AS n FROM audit_events WHERE action = 'token.refresh_reused'"
        " AND target = $1",
        str(family[0]["family_id"]),
    )
    assert reused[0]["n"] >= 1

    with httpx.Client(base_url=token_url, timeout=30) as http:
        http.headers["X-Forwarded-For"] = tf.fresh_address()
        after = tf.refresh(http, app, won["refresh_token"])
        assert oauth_error(after)["error"] == "invalid_grant"
        assert tf.introspect(http, app, won["access_token"]).json() == {"active": False}
        assert tf.introspect(http, app, won["refresh_token"]).json() == {"active": False}
