"""``/oauth2/logout`` through the proxy (contract §3, "session active → session ended")."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from idp_common.crypto.jwt import sign_jwt
from idp_common.crypto.keys import load_key_set
from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def app(stack: Stack) -> records.TestClient:
    return records.create_client(stack, skip_consent=True)


def id_token(stack: Stack, client_id: str, subject: str, **extra: object) -> str:
    now = int(time.time())
    claims = {
        "iss": stack.issuer,
        "sub": subject,
        "aud": client_id,
        "iat": now,
        "exp": now + 600,
        **extra,
    }
    return sign_jwt(claims, load_key_set(stack.key_dir))


def signed_in_with_token(stack: Stack, app: records.TestClient):  # type: ignore[no-untyped-def]
    person = records.create_user(stack)
    cookie, session = records.create_browser_session(stack, person.id)
    refresh = records.issue_session_refresh_token(stack, app.client_id, person.id, session.sid)
    return person, cookie, session, refresh


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_logout_ends_the_session_everywhere(
    proxy: httpx.Client, stack: Stack, app: records.TestClient, method: str
) -> None:
    person, cookie, session, _ = signed_in_with_token(stack, app)
    values = {
        "id_token_hint": id_token(stack, app.client_id, person.id),
        "post_logout_redirect_uri": app.post_logout_redirect_uri,
        "state": "bye-1",
    }
    headers = {"Cookie": f"svc_session={cookie}"}
    if method == "GET":
        response = proxy.get("/oauth2/logout", params=values, headers=headers)
        assert response.status_code == 302
    else:
        response = proxy.post("/oauth2/logout", data=values, headers=headers)
        assert response.status_code == 303
    # 4) redirect back to the application, with state
    location = urlsplit(response.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == app.post_logout_redirect_uri
    assert parse_qs(location.query) == {"state": ["bye-1"]}
    # 3) session and cookie cleared
    assert not records.session_exists(stack, session.sid)
    set_cookie = response.headers["set-cookie"]
    assert set_cookie.startswith("svc_session=")
    assert "Max-Age=0" in set_cookie
    # 1) the session's refresh tokens revoked
    rows = records.query(
        stack, "SELECT revoked_at FROM refresh_tokens WHERE session_sid = $1", session.sid
    )
    assert rows
    assert all(r["revoked_at"] is not None for r in rows)
    # 2) one outbox event for the back-channel fan-out, written in the same transaction
    events = records.query(
        stack, "SELECT subject, payload FROM event_outbox WHERE payload->>'sid' = $1", session.sid
    )
    assert len(events) == 1
    assert events[0]["subject"] == f"{stack.env['SVC_NATS_PREFIX']}.session.ended"
    audit = records.query(
        stack, "SELECT action, actor FROM audit_events WHERE target = $1", session.sid
    )
    assert audit == [{"action": "session.ended", "actor": person.id}]


def test_after_logout_prompt_none_gets_login_required(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    _, cookie, _, _ = signed_in_with_token(stack, app)
    headers = {"Cookie": f"svc_session={cookie}"}
    query = {
        "response_type": "code",
        "client_id": app.client_id,
        "scope": "openid",
        "redirect_uri": app.redirect_uri,
        "prompt": "none",
        "state": "s",
    }
    assert (
        "code=" in proxy.get("/oauth2/authorize", params=query, headers=headers).headers["location"]
    )
    proxy.post("/oauth2/logout", data={"client_id": app.client_id}, headers=headers)
    again = proxy.get("/oauth2/authorize", params=query, headers=headers)
    assert "error=login_required" in again.headers["location"]


def test_unregistered_post_logout_uri_is_not_followed(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    response = proxy.get(
        "/oauth2/logout",
        params={"client_id": app.client_id, "post_logout_redirect_uri": "https://evil.example/bye"},
    )
    assert response.status_code == 400
    assert "location" not in response.headers


def test_without_a_redirect_uri_the_signed_out_page_is_shown(
    proxy: httpx.Client, stack: Stack
) -> None:
    response = proxy.get("/oauth2/logout")
    assert response.status_code == 302
    assert response.headers["location"] == f"{stack.issuer}/auth/logged-out"


def test_a_logout_token_is_not_an_id_token_hint(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    hint = id_token(
        stack,
        app.client_id,
        "someone",
        events={"http://schemas.openid.net/event/backchannel-logout": {}},
    )
    response = proxy.get("/oauth2/logout", params={"id_token_hint": hint})
    assert response.status_code == 400
    assert "location" not in response.headers
