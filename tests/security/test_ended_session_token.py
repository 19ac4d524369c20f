"""An ended session's access token keeps reading and writing the account.

The attack: a person signs in (a browser session) and the application gets an access
token issued in that session (its ``sid``). The session then ends: RP-initiated logout
(``/oauth2/logout`` with the ID token as hint; ``prompt=none`` answers
``login_required`` afterwards), or the person ends it from another session of theirs
(``DELETE /entity/sessions/{sid}``). The refresh tokens were revoked, but whoever holds the
access token (a stolen copy, a shared computer) still got 200 at ``GET /entity/profile``
and ``GET /oauth2/userinfo``, and introspection answered ``active: true``, until it
expired.

What must hold: once the session ended, its access token gets 401 ``invalid_token`` at
``/entity/profile`` and at userinfo, and introspection by its own client answers
``{"active": false}``. The person's other session is untouched: its token still works.

Every token here comes from a real sign-in (``/oauth2/authorize``, the sign-in API and the
token endpoint), and the logout goes through the proxy with the browser's cookie.
"""

from __future__ import annotations

import pytest

from tests.harness import records
from tests.harness.stack import Stack
from tests.security import token_standing_support as ts

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def app(stack: Stack) -> records.TestClient:
    return ts.self_service_app(stack)


def standing(stack: Stack, app: records.TestClient, token: str) -> dict[str, object]:
    """What the provider says of ``token`` at each place that reads it."""
    return {
        "profile": ts.outcome(ts.entity(stack, "GET", ts.PROFILE, token)),
        "userinfo": ts.outcome(ts.userinfo(stack, token)),
        "introspection active": ts.introspect(stack, (app.client_id, app.secret or ""), token)[
            "active"
        ],
    }


ENDED = {"profile": ts.REFUSED, "userinfo": ts.REFUSED, "introspection active": False}
STANDS = {"profile": "200", "userinfo": "200", "introspection active": True}


def test_logout_ends_the_sessions_access_token(stack: Stack, app: records.TestClient) -> None:
    person = records.create_user(stack)
    signed_in = ts.sign_in(stack, app, person)
    assert standing(stack, app, signed_in.access_token) == STANDS

    ts.log_out(stack, app, signed_in)

    assert standing(stack, app, signed_in.access_token) == ENDED


def test_ending_a_session_from_another_ends_its_access_token(
    stack: Stack, app: records.TestClient
) -> None:
    person = records.create_user(stack)
    left_open = ts.sign_in(stack, app, person)  # say, on a shared computer
    here = ts.sign_in(stack, app, person)
    assert left_open.sid != here.sid
    assert standing(stack, app, left_open.access_token) == STANDS

    ended = ts.entity(stack, "DELETE", f"/entity/sessions/{left_open.sid}", here.access_token)
    assert ended.status_code == 204, ended.text
    assert not records.session_exists(stack, left_open.sid)

    assert standing(stack, app, left_open.access_token) == ENDED
    assert standing(stack, app, here.access_token) == STANDS
