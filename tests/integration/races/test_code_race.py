"""50 concurrent redemptions of one authorization code (issue 21), against the stack's token
service: exactly one is answered with tokens, the 49 others ``invalid_grant``.

RFC 6749 §4.1.2: a code used more than once is denied and the tokens issued from it
SHOULD be revoked. The losers wait on the code's row lock until the winner commits, then
find it used: a replay, every time. So the winner's refresh token (Postgres) and access
token (the Redis revocation list) are revoked, whatever the timing, and the replay is
audited (``token.code_replayed``).
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
REDEMPTIONS = 50


def test_one_of_fifty_concurrent_redemptions_wins_and_its_tokens_are_revoked(
    stack: Stack,
) -> None:
    token_url = stack.service_url("token")
    app = tf.create_client(stack)
    person = tf.create_person(stack)
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(stack, app, person, challenge=challenge)
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": app.redirect_uri,
        "code_verifier": verifier,
    }

    def redeem(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        headers = {**app.basic(), "X-Forwarded-For": tf.fresh_address()}
        return client.post(token_url + "/oauth2/token", data=form, headers=headers)

    answers = at_once([redeem] * REDEMPTIONS)
    no_server_error(answers)
    assert statuses(answers) == [200] + [400] * (REDEMPTIONS - 1)
    (won,) = [a.json() for a in answers if a.status_code == 200]
    assert {"access_token", "refresh_token", "id_token"} <= set(won)
    for lost in (a for a in answers if a.status_code == 400):
        assert oauth_error(lost)["error"] == "invalid_grant"

    rows = query(
        stack,
        "SELECT grant_id, revoked_at IS NOT NULL AS revoked FROM refresh_tokens"
        " WHERE client_pk = $1",
        app.pk,
    )
    assert len(rows) == 1, rows  # one code, one grant, one refresh token
    assert rows[0]["revoked"], "the winner's refresh token survived the replays"
    replayed = query(
        stack,
        "SELECT count(*) AS n FROM audit_events WHERE action = 'token.code_replayed'"
        " AND target = $1",
        str(rows[0]["grant_id"]),
    )
    assert replayed[0]["n"] >= 1

    with httpx.Client(base_url=token_url, timeout=30) as http:
        http.headers["X-Forwarded-For"] = tf.fresh_address()
        assert oauth_error(tf.refresh(http, app, won["refresh_token"]))["error"] == "invalid_grant"
        assert tf.introspect(http, app, won["access_token"]).json() == {"active": False}
