"""Removing a credential ends what came before it (docs/security.md "Tokens end when what
they stand for ends"; docs/decisions.md).

A person removing their own authenticator keeps the session they did it from and every
other session of theirs ends (an attacker's included): its access tokens are refused, its
refresh tokens revoked. The kept session's tokens still work, but its next sensitive change
needs a new sign-in. An administrator removing it ends every session. Each time the person
is told, once per credential (the authenticator and its recovery codes), audited; the
stack's mail server is closed, so the notices are recorded as failed, never silently lost.
"""

from __future__ import annotations

import json

import httpx
import pyotp
import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness.api import TWO_FACTOR_SIGN_IN, ApiClient, create_administrator
from tests.harness.records import (
    TestClient,
    TestUser,
    create_browser_session,
    create_client,
    issue_session_refresh_token,
    query,
    session_exists,
)
from tests.harness.rows import notice_rows
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi, now

pytestmark = pytest.mark.integration

TOTP = "/entity/totp"
PROFILE = "/entity/profile"


def enrol_authenticator(api: EntityApi) -> None:
    secret = api.post(f"{TOTP}/enroll").json()["secret"]
    confirmed = api.post(f"{TOTP}/confirm", json={"code": pyotp.TOTP(secret).now()})
    assert confirmed.status_code == 200, confirmed.text


def notices(stack: Stack, person: TestUser, count: int) -> list[tuple[str, str, str]]:
    """(action, credential, change) of the notice rows about ``person``, once ``count`` are
    there."""
    told = [(str(r["action"]), dict(r["detail"])) for r in notice_rows(stack, person.id, count)]
    return [(action, detail["credential"], detail["change"]) for action, detail in told]


def authorize(stack: Stack, app: TestClient, cookie: str, **extra: str) -> str:
    """Where ``/oauth2/authorize`` sends the browser of ``cookie`` for ``app``."""
    params = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": app.redirect_uri,
        "scope": "openid",
        "state": "s",
        "nonce": "n",
        **extra,
    }
    answer = httpx.get(
        stack.proxy_url + "/oauth2/authorize",
        params=params,
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=15,
    )
    assert answer.status_code in (302, 303), answer.text
    return str(answer.headers["location"])


def changed_at(stack: Stack, person: TestUser) -> object:
    rows = query(stack, "SELECT credentials_changed_at FROM users WHERE id = $1", person.id)
    return rows[0]["credentials_changed_at"]


def test_removing_ones_authenticator_ends_every_other_session(
    stack: Stack, entity_api: EntityApi, person: TestUser
) -> None:
    app = create_client(stack, skip_consent=True)
    # signed in a minute ago: still recent, and certainly before the removal
    my_cookie, mine = create_browser_session(stack, person.id, auth_time=now() - 60)
    _, other = create_browser_session(stack, person.id)
    other_refresh = issue_session_refresh_token(stack, app.client_id, person.id, other.sid)
    entity_api.claims.update(sid=mine.sid, auth_time=mine.auth_time)
    enrol_authenticator(entity_api)
    added = notices(stack, person, 2)
    assert [(c, ch) for _, c, ch in added] == [
        ("authenticator", "added"),
        ("recovery_codes", "added"),
    ]
    assert changed_at(stack, person) is None  # adding ends nothing
    others_token = entity_api.token(sid=other.sid)

    removed = entity_api.delete(TOTP)

    assert removed.status_code == 204, removed.text
    assert session_exists(stack, mine.sid) and not session_exists(stack, other.sid)
    refused = entity_api.client.get(PROFILE, headers={"Authorization": f"Bearer {others_token}"})
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["www-authenticate"]
    assert entity_api.get(PROFILE).status_code == 200  # the kept session's tokens stand
    rows = query(stack, "SELECT revoked_at FROM refresh_tokens WHERE session_sid = $1", other.sid)
    assert rows and all(r["revoked_at"] is not None for r in rows), other_refresh
    assert changed_at(stack, person) is not None
    [audited] = query(
        stack,
        "SELECT detail FROM audit_events WHERE action = 'totp.delete' AND target = $1",
        person.id,
    )
    assert json.loads(str(audited["detail"])) == {"hadAuthenticator": True, "sessionsEnded": 1}
    told = notices(stack, person, 4)[2:]
    assert [(c, ch) for _, c, ch in told] == [
        ("authenticator", "removed"),
        ("recovery_codes", "removed"),
    ]
    assert {a for a, _, _ in told} == {"notice.failed"}  # the stack's mail port is closed
    # The kept session signs in again before its next sensitive change: the API asks for a
    # recent sign-in, and the authorization endpoint does not take the kept one for it.
    stale = entity_api.post(f"{TOTP}/enroll")
    assert stale.status_code == 403, stale.text
    assert 'error="insufficient_user_authentication"' in stale.headers["www-authenticate"]
    assert "/auth/login" in authorize(stack, app, my_cookie, max_age="300")
    assert "code=" in authorize(stack, app, my_cookie)  # single sign-on goes on
    entity_api.claims["sid"] = create_browser_session(stack, person.id)[1].sid
    entity_api.claims["auth_time"] = now()
    assert entity_api.post(f"{TOTP}/enroll").status_code == 201


def test_an_administrator_removing_it_ends_every_session(
    stack: Stack, entity_api: EntityApi, person: TestUser
) -> None:
    entity_api.claims["sid"] = create_browser_session(stack, person.id)[1].sid
    enrol_authenticator(entity_api)
    actor = create_administrator(stack, ADMIN_SCOPES)
    admin = ApiClient(stack, "admin", actor, ADMIN_SCOPES, fresh_sign_in=True)
    admin.claims = dict(TWO_FACTOR_SIGN_IN)
    try:
        cleared = admin.delete(f"/admin/users/{person.id}/totp")
    finally:
        admin.close()
    assert cleared.status_code == 204, cleared.text
    assert not session_exists(stack, str(entity_api.claims["sid"]))
    assert entity_api.get(PROFILE).status_code == 401
    told = notices(stack, person, 4)[2:]
    assert [(c, ch) for _, c, ch in told] == [
        ("authenticator", "removed"),
        ("recovery_codes", "removed"),
    ]
