"""Helpers shared by the back-channel trigger tests: the scene (a person signed in to
several applications), the ways a session ends, and the check of one fan-out each."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import httpx

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from tests.harness import oidc, records, tokens
from tests.harness.api import signed_in_administrator, signed_in_session
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack

RECEIVER_PATH = "/app/backchannel-logout"
NEW_PASSWORD = "a brand new passphrase 61"
#: After the expected deliveries, how long nothing more may arrive.
SETTLE_SECONDS = 1.5


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


def call(stack: Stack, method: str, path: str, bearer: str, json: Any = None) -> httpx.Response:
    """``method path`` at the proxy with an access token."""
    headers = {"Authorization": f"Bearer {bearer}"}
    return httpx.request(method, stack.proxy_url + path, headers=headers, json=json, timeout=20)


def person_token(scene: Scene, **session: str) -> str:
    """The person's self-service token, with a sign-in just now (recent enough to step up
    when ``sid`` names a live session of theirs for it to stand on)."""
    return tokens.mint(
        scene.stack.key_dir,
        issuer=scene.stack.issuer,
        scopes=SELF_SERVICE_SCOPES,
        subject=scene.person.id,
        auth_time=int(time.time()),
        amr=["pwd"],
        **session,
    )


def admin_token(scene: Scene) -> str:
    """A real administrator's token, signed in just now with two factors in a live session
    (the sensitive administration routes ask for it: docs/admin-api.md)."""
    return signed_in_administrator(scene.stack)[1]


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


def change_own_password(scene: Scene) -> None:
    answer = call(
        scene.stack,
        "POST",
        "/entity/credentials/password",
        # a session of the person's own elsewhere: the change keeps it, it ends the others
        person_token(scene, sid=signed_in_session(scene.stack, scene.person.id)),
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
