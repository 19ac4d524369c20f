"""``/entity/sessions`` (contract §4 "Entity (self-service)", part 3 "session active",
issue 5 acceptance 1 and 6).

The list shows each application reached, recorded by real authorizations through the
proxy (one full sign-in with password and consent, one silent authorization in the same
browser). Ending a session has the logout fan-out; ending someone else's is the same 404
as an unknown id and changes nothing (their session, refresh token and outbox stay).
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from idp_common.protocol.constants import SCOPE_IDP_SESSIONS_READ, SCOPE_IDP_SESSIONS_WRITE
from idp_common.protocol.oidc_core_claims import session_sid
from tests.e2e.test_oidc_flow_authlib import query_of, sign_in
from tests.harness import records
from tests.harness.records import (
    create_browser_session,
    create_client,
    create_user,
    give_consent,
    issue_session_refresh_token,
    query,
    session_exists,
)
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi, assert_guarded, assert_problem

pytestmark = pytest.mark.integration
PATH = "/entity/sessions"


def authorize_url(client: records.TestClient, **extra: str) -> str:
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uri,
        "scope": "openid profile",
        "state": secrets.token_urlsafe(8),
        "nonce": secrets.token_urlsafe(8),
        **extra,
    }
    return "/oauth2/authorize?" + urlencode(params)


def refresh(stack: Stack, client: records.TestClient, token: str) -> httpx.Response:
    return httpx.post(
        stack.proxy_url + "/oauth2/token",
        auth=(client.client_id, client.secret or ""),
        data={"grant_type": "refresh_token", "refresh_token": token},
        timeout=10,
    )


def outbox_rows(stack: Stack, user_id: str) -> list[dict[str, Any]]:
    rows = query(
        stack,
        "SELECT subject, payload::text AS payload FROM event_outbox "
        "WHERE payload->>'user_id' = $1 ORDER BY id",
        user_id,
    )
    return [{"subject": r["subject"], **json.loads(str(r["payload"]))} for r in rows]


def reach(stack: Stack, cookie: str, client: records.TestClient) -> None:
    """A silent authorization of ``client`` in the browser session ``cookie``."""
    answer = httpx.get(
        stack.proxy_url + authorize_url(client, prompt="none"),
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=10,
    )
    assert "code" in query_of(answer.headers["location"]), answer.headers["location"]


# --- guards -----------------------------------------------------------------------------


def test_list_is_guarded(entity_api: EntityApi) -> None:
    assert_guarded(entity_api, "GET", PATH, SCOPE_IDP_SESSIONS_READ)


def test_end_is_guarded_and_changes_nothing(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    _, session = create_browser_session(stack, person.id)
    assert_guarded(entity_api, "DELETE", f"{PATH}/{session.sid}", SCOPE_IDP_SESSIONS_WRITE)
    assert session_exists(stack, session.sid)
    assert outbox_rows(stack, person.id) == []


def test_a_machine_token_is_refused(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    _, session = create_browser_session(stack, person.id)
    entity_api.claims["sub"] = "app-machine"
    assert_problem(entity_api.get(PATH), 404)
    assert_problem(entity_api.delete(f"{PATH}/{session.sid}"), 404)
    assert session_exists(stack, session.sid)


# --- list -------------------------------------------------------------------------------


def test_list_shows_each_application_reached(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    """Acceptance 6: a full sign-in to one application and a silent authorization of a
    second one in the same browser; both appear, with their names, on that session."""
    first = create_client(stack)
    second = create_client(stack)
    give_consent(stack, second.client_id, person.id, ["openid", "profile"])
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=10) as browser:
        browser.headers["User-Agent"] = "entity-sessions-test/1.0"
        callback = sign_in(browser, authorize_url(first), person)
        assert "code" in query_of(callback)
        back = browser.get(authorize_url(second, prompt="none"))
        assert "code" in query_of(back.headers["location"]), back.headers["location"]
        sid = session_sid(browser.cookies["svc_session"])
    time.sleep(1.1)  # creation times are in seconds: make the order certain
    _, other = create_browser_session(stack, person.id)  # newer, reached nothing

    entity_api.claims["sid"] = sid
    response = entity_api.get(PATH)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["nextCursor"] is None
    assert [s["id"] for s in body["items"]] == [other.sid, sid]  # newest first
    newer, signed_in = body["items"]
    assert newer["current"] is False and newer["applications"] == []
    assert signed_in["current"] is True
    assert signed_in["applications"] == [
        {"clientId": first.client_id, "name": f"Test app {first.client_id}"},
        {"clientId": second.client_id, "name": f"Test app {second.client_id}"},
    ]
    assert signed_in["userAgent"] == "entity-sessions-test/1.0"
    assert signed_in["ip"]
    assert signed_in["createdAt"] <= signed_in["lastSeen"]
    assert set(signed_in) == {
        "id",
        "createdAt",
        "lastSeen",
        "ip",
        "userAgent",
        "current",
        "applications",
    }


def test_list_holds_only_the_callers_sessions(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    someone = create_user(stack)
    create_browser_session(stack, someone.id)
    _, own = create_browser_session(stack, person.id)
    items = entity_api.get(PATH).json()["items"]
    assert [s["id"] for s in items] == [own.sid]
    assert items[0]["current"] is False  # the token names no session


def test_list_is_paged(entity_api: EntityApi, stack: Stack, person: records.TestUser) -> None:
    made = {create_browser_session(stack, person.id)[1].sid for _ in range(3)}
    first = entity_api.get(PATH, params={"limit": 2}).json()
    assert len(first["items"]) == 2 and first["nextCursor"]
    rest = entity_api.get(PATH, params={"limit": 2, "cursor": first["nextCursor"]}).json()
    assert rest["nextCursor"] is None
    assert {s["id"] for s in first["items"] + rest["items"]} == made
    assert len(first["items"] + rest["items"]) == 3


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"cursor": "WyJ4Il0"}, "cursor"),  # ["x"]
    ],
)
def test_list_refuses_bad_paging(entity_api: EntityApi, params: dict[str, Any], field: str) -> None:
    assert_problem(entity_api.get(PATH, params=params), 422, field=field)


# --- end --------------------------------------------------------------------------------


def test_ending_a_session_fans_out_like_logout(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    app = create_client(stack)
    give_consent(stack, app.client_id, person.id, ["openid", "profile"])
    cookie, session = create_browser_session(stack, person.id)
    reach(stack, cookie, app)
    token = issue_session_refresh_token(stack, app.client_id, person.id, session.sid)
    _, kept = create_browser_session(stack, person.id)
    kept_token = issue_session_refresh_token(stack, app.client_id, person.id, kept.sid)
    entity_api.claims["sid"] = kept.sid  # the person ends the session from the other one

    response = entity_api.delete(f"{PATH}/{session.sid}")
    assert response.status_code == 204, response.text
    assert not session_exists(stack, session.sid)
    assert refresh(stack, app, token).json()["error"] == "invalid_grant"
    assert [
        (e["sid"], e["clients"], e["reason"], e["subject"]) for e in outbox_rows(stack, person.id)
    ] == [
        (
            session.sid,
            [app.client_id],
            "entity_revoked",
            f"{stack.env['SVC_NATS_PREFIX']}.session.ended",
        )
    ]
    rows = entity_api.audit_rows(session.sid)
    assert [(r["action"], r["actor"], r["target_type"], r["status_code"]) for r in rows] == [
        ("session.end", person.id, "session", 204)
    ]
    # The person's other session goes on.
    assert session_exists(stack, kept.sid)
    assert refresh(stack, app, kept_token).status_code == 200
    assert [s["id"] for s in entity_api.get(PATH).json()["items"]] == [kept.sid]
    # Ended once: a second try finds nothing.
    assert_problem(entity_api.delete(f"{PATH}/{session.sid}"), 404)


def test_ending_someone_elses_session_is_refused_and_changes_nothing(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    """Acceptance 6: the same 404 as an unknown id, and their session and token live on."""
    app = create_client(stack)
    someone = create_user(stack)
    _, theirs = create_browser_session(stack, someone.id)
    token = issue_session_refresh_token(stack, app.client_id, someone.id, theirs.sid)

    refused = entity_api.delete(f"{PATH}/{theirs.sid}")
    unknown = entity_api.delete(f"{PATH}/{session_sid('no-such-cookie')}")
    assert_problem(refused, 404)
    assert_problem(unknown, 404)
    same = ("type", "title", "status", "detail", "code")
    assert {k: refused.json().get(k) for k in same} == {k: unknown.json().get(k) for k in same}

    assert session_exists(stack, theirs.sid)
    assert refresh(stack, app, token).status_code == 200
    assert outbox_rows(stack, someone.id) == []
    assert not [r for r in entity_api.audit_rows(theirs.sid) if r["action"] == "session.end"]


@pytest.mark.parametrize("session_id", ["x" * 300, "not a sid", "..."])
def test_ending_a_malformed_id_is_404(entity_api: EntityApi, session_id: str) -> None:
    assert_problem(entity_api.delete(f"{PATH}/{session_id}"), 404)
