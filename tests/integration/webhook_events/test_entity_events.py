"""Webhook events of the self-service API (docs/webhooks.md "Events"), against the stack's
entity service (and the admin service for an administrator's removal of a passkey): each
change of a person's own account announces exactly its events; no payload carries the
password, the new email, the authenticator's secret or codes, or the passkey."""

from __future__ import annotations

import secrets
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pyotp
import pytest

from tests.harness import records
from tests.harness.faces import FACES
from tests.harness.passkeys import SoftAuthenticator
from tests.harness.records import (
    TestUser,
    create_browser_session,
    create_client,
    give_consent,
)
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import EntityApi
from tests.integration.webhook_events.support import (
    assert_no_secret,
    events_about,
    one,
    types_about,
)

pytestmark = pytest.mark.integration
NEW_PASSWORD = "copper lantern meadow eleven"


def reach(stack: Stack, cookie: str, client: records.TestClient) -> None:
    """A silent authorization of ``client`` in the browser session ``cookie`` (through the
    proxy), so the session's end names the client."""
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uri,
        "scope": "openid profile",
        "state": secrets.token_urlsafe(8),
        "nonce": secrets.token_urlsafe(8),
        "prompt": "none",
    }
    answer = httpx.get(
        f"{stack.proxy_url}/oauth2/authorize?{urlencode(params)}",
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=10,
    )
    assert "code" in parse_qs(urlsplit(answer.headers["location"]).query), answer.headers


def test_profile_email_and_password(stack: Stack, entity_api: EntityApi, person: TestUser) -> None:
    me = person.id
    cookie, session = create_browser_session(stack, me)
    entity_api.claims["sid"] = session.sid  # the person's one session, where they act
    profile = entity_api.patch("/entity/profile", json={"displayName": "Ada L."})
    assert profile.status_code == 200, profile.text
    assert one(stack, me, "user.profile_changed") == {
        "user_id": me,
        "actor": me,
        "keys": ["displayName"],
    }
    new_email = f"moved-{uuid.uuid4().hex[:10]}@example.com"
    moved = entity_api.post(
        "/entity/credentials/email", json={"email": new_email, "currentPassword": person.password}
    )
    assert moved.status_code == 200, moved.text
    assert one(stack, me, "user.updated") == {"user_id": me, "actor": me, "fields": ["email"]}

    app = create_client(stack, skip_consent=True)
    reach(stack, cookie, app)
    changed = entity_api.post(
        "/entity/credentials/password",
        json={"currentPassword": person.password, "newPassword": NEW_PASSWORD},
    )
    assert changed.status_code == 204, changed.text
    assert one(stack, me, "user.password_changed") == {
        "user_id": me,
        "actor": me,
        "via": "self_service",
        "password_set": True,
    }
    assert one(stack, me, "session.ended") == {
        "user_id": me,
        "sid": session.sid,
        "reason": "password_changed",
        "client_ids": [app.client_id],
    }
    assert types_about(stack, me) == [
        "user.profile_changed",
        "user.updated",
        "session.ended",
        "user.password_changed",
    ]
    assert_no_secret(stack, me, person.password, NEW_PASSWORD, new_email, person.email, "Ada L.")


def test_a_refused_change_announces_nothing(
    stack: Stack, entity_api: EntityApi, person: TestUser
) -> None:
    wrong = entity_api.post(
        "/entity/credentials/password",
        json={"currentPassword": "not the password", "newPassword": NEW_PASSWORD},
    )
    assert wrong.status_code == 422, wrong.text
    unknown = entity_api.patch("/entity/profile", json={"noSuchField": "x"})
    assert unknown.status_code == 422, unknown.text
    assert events_about(stack, person.id) == []


def test_authenticator_enrolled_when_confirmed_and_removed(
    stack: Stack, entity_api: EntityApi, person: TestUser
) -> None:
    me = person.id
    started = entity_api.post("/entity/totp/enroll")
    assert started.status_code == 201, started.text
    secret = started.json()["secret"]
    assert events_about(stack, me) == []  # nothing signs in with it yet
    code = pyotp.TOTP(secret).now()
    confirmed = entity_api.post("/entity/totp/confirm", json={"code": code})
    assert confirmed.status_code == 200, confirmed.text
    recovery = confirmed.json()["recoveryCodes"]
    assert one(stack, me, "user.authenticator_enrolled") == {"user_id": me, "actor": me}
    assert entity_api.delete("/entity/totp").status_code == 204
    entity_api.sign_in_again()  # a removal is a credential change: sign in before the next
    assert entity_api.delete("/entity/totp").status_code == 204  # nothing left: no event
    assert one(stack, me, "user.authenticator_removed") == {"user_id": me, "actor": me}
    assert types_about(stack, me) == ["user.authenticator_enrolled", "user.authenticator_removed"]
    assert_no_secret(stack, me, secret, code, *recovery)


def test_passkey_enrolled_and_removed_by_an_administrator(
    stack: Stack, entity_api: EntityApi, person: TestUser
) -> None:
    me = person.id
    soft = SoftAuthenticator(origin=stack.issuer, rp_id="127.0.0.1")
    options = entity_api.post("/entity/passkeys/registration-options")
    assert options.status_code == 200, options.text
    credential = soft.create(options.json())
    registered = entity_api.post("/entity/passkeys", json={"credential": credential})
    assert registered.status_code == 201, registered.text
    passkey = registered.json()["id"]
    assert one(stack, me, "user.passkey_enrolled") == {
        "user_id": me,
        "actor": me,
        "passkey_id": passkey,
    }
    admin = AdminApi(stack)
    try:
        removed = admin.delete(f"/admin/users/{me}/passkeys/{passkey}")
        assert removed.status_code == 204, removed.text
        actor = admin.actor
    finally:
        admin.close()
    assert one(stack, me, "user.passkey_removed") == {
        "user_id": me,
        "actor": actor,
        "passkey_id": passkey,
    }
    # the administrator's removal also ended the person's session it was registered from
    assert types_about(stack, me) == [
        "user.passkey_enrolled",
        "session.ended",
        "user.passkey_removed",
    ]
    assert_no_secret(stack, me, credential["id"], credential["response"]["attestationObject"])


def test_consent_withdrawn_and_session_ended(
    stack: Stack, entity_api: EntityApi, person: TestUser
) -> None:
    me = person.id
    app = create_client(stack)
    give_consent(stack, app.client_id, me, ["openid", "profile"])
    assert entity_api.delete(f"/entity/connections/{app.client_id}").status_code == 204
    assert one(stack, me, "consent.withdrawn") == {
        "user_id": me,
        "client_id": app.client_id,
        "had_consent": True,
    }
    assert entity_api.delete(f"/entity/connections/{app.client_id}").status_code == 404
    _, session = create_browser_session(stack, me)
    assert entity_api.delete(f"/entity/sessions/{session.sid}").status_code == 204
    assert one(stack, me, "session.ended") == {
        "user_id": me,
        "sid": session.sid,
        "reason": "entity_revoked",
        "client_ids": [],
    }
    assert types_about(stack, me) == ["consent.withdrawn", "session.ended"]


@pytest.mark.face
def test_face_enrolled_and_removed(stack: Stack, entity_api: EntityApi, person: TestUser) -> None:
    me = person.id
    image = (FACES / "obama1.jpg").read_bytes()
    enrolled = entity_api.put("/entity/face", files={"file": ("f.jpg", image, "image/jpeg")})
    assert enrolled.status_code == 200, enrolled.text
    assert one(stack, me, "user.face_enrolled") == {"user_id": me, "actor": me, "replaced": False}
    assert entity_api.delete("/entity/face").status_code == 204
    entity_api.sign_in_again()  # a removal is a credential change: sign in before the next
    assert entity_api.delete("/entity/face").status_code == 204
    assert one(stack, me, "user.face_removed") == {"user_id": me, "actor": me}
    assert types_about(stack, me) == ["user.face_enrolled", "user.face_removed"]
