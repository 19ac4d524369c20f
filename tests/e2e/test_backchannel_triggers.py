"""Each way a session ends produces exactly one back-channel fan-out (issue 6 acceptance 4;
spec part 3 "States and transitions", part 6 "Events").

An application with a back-channel URI on a real receiver; a person signs in to it through
the proxy (two browsers, so two sessions, for the ways that end every session of a person);
the session ends through the real route of one way; then, per ended session: exactly one
logout token arrives (and nothing more in the moment after), it verifies against the JWKS
and names the session's ``sid`` and the person; exactly one outbox row was written; exactly
one delivery audit row, 200, whose reason names the way.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from idp_common.protocol.constants import ADMIN_SCOPES, SELF_SERVICE_SCOPES
from tests.harness import oidc, records, tokens
from tests.harness.api import TWO_FACTOR_SIGN_IN, create_administrator
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack, start_with_mail_catcher
from tests.integration.signin_fixtures import post, signin_client, wait_for_mail

pytestmark = pytest.mark.e2e

RECEIVER_PATH = "/app/backchannel-logout"
NEW_PASSWORD = "a brand new passphrase 61"
#: After the expected deliveries, how long nothing more may arrive.
SETTLE_SECONDS = 1.5


# --- the scene: an application on a receiver, a person, their browser sessions -------------


@dataclass
class Session:
    browser: oidc.Browser
    sid: str  # the ID token's sid: the session's id as the application knows it
    id_token: str


@dataclass
class ForcedSignIn(oidc.Authorization):
    """An authorization asking for a new sign-in even when the browser has a session."""

    def params(self, scope: str = "openid profile offline_access") -> dict[str, str]:
        return {**super().params(scope), "prompt": "login"}


@dataclass
class Scene:
    stack: Stack
    receiver: Receiver
    app: records.TestClient
    person: records.TestUser
    browsers: ExitStack

    def sign_in(self, browser: oidc.Browser | None = None) -> Session:
        """A password sign-in to the application (in a new browser unless one is given);
        the code is exchanged, and the ID token names the person and the session."""
        if browser is None:
            browser = self.browsers.enter_context(oidc.Browser(self.stack))
            authorization = oidc.Authorization(self.app)
        else:
            authorization = ForcedSignIn(self.app)
        code = browser.sign_in(authorization, self.person)
        id_token = oidc.exchange(self.stack, authorization, code)["id_token"]
        _, claims = oidc.verified_claims(self.stack, id_token, audience=self.app.client_id)
        assert claims["sub"] == self.person.id
        assert records.session_exists(self.stack, claims["sid"])
        return Session(browser, claims["sid"], id_token)


@pytest.fixture
def scene(stack: Stack) -> Iterator[Scene]:
    with Receiver() as receiver, ExitStack() as browsers:
        app = records.create_client(
            stack, skip_consent=True, backchannel_logout_uri=receiver.url_for(RECEIVER_PATH)
        )
        yield Scene(stack, receiver, app, records.create_user(stack), browsers)


# --- calls through the proxy ---------------------------------------------------------------


def call(stack: Stack, method: str, path: str, bearer: str, json: Any = None) -> httpx.Response:
    """``method path`` at the proxy with an access token."""
    headers = {"Authorization": f"Bearer {bearer}"}
    return httpx.request(method, stack.proxy_url + path, headers=headers, json=json, timeout=20)


def person_token(scene: Scene) -> str:
    """The person's self-service token, with a sign-in just now (recent enough to step up)."""
    return tokens.mint(
        scene.stack.key_dir,
        issuer=scene.stack.issuer,
        scopes=SELF_SERVICE_SCOPES,
        subject=scene.person.id,
        auth_time=int(time.time()),
        amr=["pwd"],
    )


def admin_token(scene: Scene) -> str:
    """A real administrator's token, signed in just now with two factors (the sensitive
    administration routes ask for it: docs/admin-api.md)."""
    return tokens.mint(
        scene.stack.key_dir,
        issuer=scene.stack.issuer,
        scopes=ADMIN_SCOPES,
        subject=create_administrator(scene.stack, ADMIN_SCOPES),
        auth_time=int(time.time()),
        **TWO_FACTOR_SIGN_IN,
    )


# --- what must be seen afterwards ----------------------------------------------------------


def outbox_payloads(stack: Stack, sid: str) -> list[dict[str, Any]]:
    rows = records.query(
        stack,
        "SELECT payload::text AS payload FROM event_outbox WHERE payload->>'sid' = $1 ORDER BY id",
        sid,
    )
    return [json.loads(str(row["payload"])) for row in rows]


def assert_one_fan_out_each(scene: Scene, ended: Sequence[Session], reason: str) -> None:
    """Per ended session: one verified logout token, one outbox row, one 200 audit row."""
    stack, app = scene.stack, scene.app
    sids = sorted(session.sid for session in ended)
    assert len(set(sids)) == len(sids)
    scene.receiver.wait_for(len(sids))
    time.sleep(SETTLE_SECONDS)  # a second delivery would have arrived by now
    got = scene.receiver.snapshot()
    assert len(got) == len(sids), [r.path for r in got]

    token_sids = []
    for received in got:
        assert received.path == RECEIVER_PATH
        _, claims = oidc.verified_claims(
            stack, received.form["logout_token"], audience=app.client_id, typ="logout+jwt"
        )
        assert claims["sub"] == scene.person.id
        token_sids.append(claims["sid"])
    assert sorted(token_sids) == sids

    for sid in sids:
        assert not records.session_exists(stack, sid)
        assert [(p["user_id"], p["clients"], p["reason"]) for p in outbox_payloads(stack, sid)] == [
            (scene.person.id, [app.client_id], reason)
        ]
        rows = records.backchannel_attempts(stack, sid, 1)
        assert [
            (r["target"], r["status_code"], r["detail"]["reason"], r["detail"]["delivered"])
            for r in rows
        ] == [(app.client_id, 200, reason, True)]


# --- ways that end one session -------------------------------------------------------------


def log_out_by_get(scene: Scene, session: Session) -> None:
    """The browser's cookie alone, no id_token_hint: to the "signed out" page."""
    answer = session.browser.get("/oauth2/logout")
    assert answer.status_code == 302, answer.text
    assert answer.headers["location"].endswith("/logged-out")


def log_out_by_get_with_hint(scene: Scene, session: Session) -> None:
    answer = session.browser.get(
        "/oauth2/logout",
        params={
            "id_token_hint": session.id_token,
            "post_logout_redirect_uri": scene.app.post_logout_redirect_uri,
        },
    )
    assert answer.status_code == 302, answer.text
    assert answer.headers["location"].startswith(scene.app.post_logout_redirect_uri)


def log_out_by_post(scene: Scene, session: Session) -> None:
    answer = session.browser.post(
        "/oauth2/logout",
        data={
            "id_token_hint": session.id_token,
            "post_logout_redirect_uri": scene.app.post_logout_redirect_uri,
        },
    )
    assert answer.status_code == 303, answer.text
    assert answer.headers["location"].startswith(scene.app.post_logout_redirect_uri)


def end_own_session(scene: Scene, session: Session) -> None:
    """``DELETE /entity/sessions/{id}`` with the id the person's session list shows."""
    bearer = person_token(scene)
    listed = call(scene.stack, "GET", "/entity/sessions", bearer)
    assert listed.status_code == 200, listed.text
    assert [s["id"] for s in listed.json()["items"]] == [session.sid]
    answer = call(scene.stack, "DELETE", f"/entity/sessions/{session.sid}", bearer)
    assert answer.status_code == 204, answer.text


@pytest.mark.parametrize(
    ("end", "reason"),
    [
        pytest.param(log_out_by_get, "logout", id="logout-get"),
        pytest.param(log_out_by_get_with_hint, "logout", id="logout-get-id-token-hint"),
        pytest.param(log_out_by_post, "logout", id="logout-post"),
        pytest.param(end_own_session, "entity_revoked", id="entity-delete-session"),
    ],
)
def test_ending_one_session_fans_out_once(
    scene: Scene, end: Callable[[Scene, Session], None], reason: str
) -> None:
    session = scene.sign_in()
    end(scene, session)
    assert_one_fan_out_each(scene, [session], reason)


def test_another_person_signing_in_in_the_same_browser_ends_the_previous_session_once(
    scene: Scene,
) -> None:
    previous = scene.sign_in()
    other = records.create_user(scene.stack)
    authorization = ForcedSignIn(scene.app)
    code = previous.browser.sign_in(authorization, other)
    id_token = oidc.exchange(scene.stack, authorization, code)["id_token"]
    _, claims = oidc.verified_claims(scene.stack, id_token, audience=scene.app.client_id)
    assert claims["sub"] == other.id and claims["sid"] != previous.sid
    assert_one_fan_out_each(scene, [previous], "replaced")
    assert records.session_exists(scene.stack, claims["sid"])  # the new one lives on
    assert outbox_payloads(scene.stack, claims["sid"]) == []


def test_the_same_person_signing_in_again_ends_nothing(scene: Scene) -> None:
    """A re-authentication continues the session under a new id (issue #19, attack 18)."""
    previous = scene.sign_in()
    current = scene.sign_in(previous.browser)
    assert current.sid != previous.sid
    time.sleep(SETTLE_SECONDS)
    assert scene.receiver.snapshot() == []
    assert outbox_payloads(scene.stack, previous.sid) == []
    assert not records.session_exists(scene.stack, previous.sid)
    assert records.session_exists(scene.stack, current.sid)


# --- ways that end every session of the person ---------------------------------------------


def change_own_password(scene: Scene) -> None:
    answer = call(
        scene.stack,
        "POST",
        "/entity/credentials/password",
        person_token(scene),
        json={"currentPassword": scene.person.password, "newPassword": NEW_PASSWORD},
    )
    assert answer.status_code == 204, answer.text


def admin_ends_sessions(scene: Scene) -> None:
    path = f"/admin/users/{scene.person.id}/sessions"
    answer = call(scene.stack, "DELETE", path, admin_token(scene))
    assert answer.status_code == 204, answer.text


def admin_deletes_user(scene: Scene) -> None:
    answer = call(scene.stack, "DELETE", f"/admin/users/{scene.person.id}", admin_token(scene))
    assert answer.status_code == 204, answer.text


def admin_resets_password(scene: Scene) -> None:
    path = f"/admin/users/{scene.person.id}/reset-password"
    answer = call(scene.stack, "POST", path, admin_token(scene), json={"password": NEW_PASSWORD})
    assert answer.status_code == 204, answer.text


def admin_disables_user(scene: Scene) -> None:
    path = f"/admin/users/{scene.person.id}"
    answer = call(scene.stack, "PATCH", path, admin_token(scene), json={"disabled": True})
    assert answer.status_code == 200, answer.text
    assert answer.json()["disabled"] is True


@pytest.mark.parametrize(
    ("end", "reason"),
    [
        pytest.param(change_own_password, "password_changed", id="entity-password-change"),
        pytest.param(admin_ends_sessions, "admin_revoked", id="admin-end-sessions"),
        pytest.param(admin_deletes_user, "user_deleted", id="admin-delete-user"),
        pytest.param(admin_resets_password, "password_reset", id="admin-reset-password"),
        pytest.param(admin_disables_user, "user_disabled", id="admin-disable-user"),
    ],
)
def test_ending_every_session_fans_out_once_per_session(
    scene: Scene, end: Callable[[Scene], None], reason: str
) -> None:
    sessions = [scene.sign_in(), scene.sign_in()]
    end(scene)
    assert_one_fan_out_each(scene, sessions, reason)


def test_a_password_reset_by_mail_fans_out_once_per_session(
    scene: Scene, extra_processes: Stack, tmp_path: Path
) -> None:
    """The reset link goes to the project's mail catcher; a second authui-api that mails
    there is called directly, as the sign-in page's script would call it."""
    mail_dir = tmp_path / "mail"
    authui = start_with_mail_catcher(extra_processes, "authui-api", mail_dir)
    sessions = [scene.sign_in(), scene.sign_in()]
    with signin_client(authui.url) as client:
        asked = post(client, "/password-reset", {"email": scene.person.email})
        assert asked.status_code == 202, asked.text
        (mail,) = wait_for_mail(mail_dir)
        link = next(
            word
            for word in mail.get_content().split()
            if word.startswith(f"{scene.stack.issuer}/auth/reset?")
        )
        token = parse_qs(urlsplit(link).query)["token"][0]
        done = post(client, "/password-reset/confirm", {"token": token, "password": NEW_PASSWORD})
        assert done.status_code == 204, done.text
    assert_one_fan_out_each(scene, sessions, "password_reset")
