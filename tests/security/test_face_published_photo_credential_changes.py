"""Attack 2, second half: a face-only sign-in does not unlock credential changes, and the
administrator's sensitive writes need a recent secret (password or one-time code)."""

from __future__ import annotations

import base64
import time
import uuid
from typing import Any

import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import oidc, records
from tests.harness.faces import enrol_face, face
from tests.harness.stack import Stack
from tests.security.face_published_photo_support import (
    ACCOUNT_WRITE,
    FACE_ONLY,
    PASSWORD,
    call,
    face_only_token,
    fingerprint,
    sign_in_with_password,
)

pytestmark = pytest.mark.e2e


@pytest.mark.face
def test_a_face_alone_does_not_unlock_credential_changes(stack: Stack) -> None:
    person = records.create_user(stack)
    enrol_face(stack, person, "kit_harington1.jpg")
    browser, tokens = face_only_token(stack, person)
    bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
    attempts = [
        browser.post(
            "/entity/credentials/password",
            json={"currentPassword": person.password, "newPassword": "a whole new secret 77"},
            headers=bearer,
        ),
        browser.post(
            "/entity/credentials/email",
            json={"email": "taken-over@example.com", "currentPassword": person.password},
            headers=bearer,
        ),
        browser.post("/entity/totp/enroll", headers=bearer),
        browser.put(
            "/entity/face",
            files={"file": ("me.jpg", face("obama1.jpg"), "image/jpeg")},
            headers=bearer,
        ),
        browser.delete("/entity/face", headers=bearer),
    ]
    for answer in attempts:
        assert answer.status_code == 403, (
            f"{answer.request.url}: {answer.status_code} {answer.text}"
        )
        challenge = answer.headers["www-authenticate"]
        assert 'error="insufficient_user_authentication"' in challenge
        assert 'acr_values="urn:idp:acr:1fa urn:idp:acr:2fa urn:idp:acr:phr"' in challenge
    _, claims = oidc.verified_claims(stack, tokens["access_token"], audience=f"{stack.issuer}/api")
    assert claims["amr"] == ["face"] and claims["acr"] == "urn:idp:acr:face"

    # The client asks again with those levels: the face is not offered, the password is.
    app = records.create_client(stack, scopes=("openid", ACCOUNT_WRITE), skip_consent=True)
    authorization = oidc.Authorization(app)
    levels = {"acr_values": "urn:idp:acr:1fa urn:idp:acr:2fa", "max_age": "300"}
    params = {**authorization.params(f"openid {ACCOUNT_WRITE}"), **levels}
    to_login = browser.get("/oauth2/authorize", params=params)
    challenge_id = oidc.query_of(to_login.headers["location"])["challenge"]
    assert browser.get(f"/api/v1/auth/challenge/{challenge_id}").json()["face"] is False
    text = "data:image/jpeg;base64," + base64.b64encode(face("kit_harington2.jpg")).decode()
    refused = browser.post(
        "/api/v1/auth/biometric",
        json={"challenge": challenge_id, "email": person.email, "image": text},
    )
    assert refused.status_code == 403 and refused.json()["code"] == "auth.face_not_offered"
    authorization = oidc.Authorization(app)
    code = sign_in_with_password(browser, authorization, person, **levels)
    fresh = oidc.exchange(stack, authorization, code)
    _, claims = oidc.verified_claims(stack, fresh["access_token"], audience=f"{stack.issuer}/api")
    assert claims["amr"] == ["pwd"] and claims["acr"] == "urn:idp:acr:1fa"
    answer = browser.post(
        "/entity/credentials/password",
        json={"currentPassword": person.password, "newPassword": "a whole new secret 77"},
        headers={"Authorization": f"Bearer {fresh['access_token']}"},
    )
    browser.close()
    assert answer.status_code == 204, answer.text


@pytest.mark.parametrize(
    "sign_in",
    [
        pytest.param(lambda now: {"auth_time": now, **FACE_ONLY}, id="face-only-just-now"),
        pytest.param(lambda now: {"auth_time": now - 3600, **PASSWORD}, id="password-an-hour-ago"),
        pytest.param(lambda now: {}, id="no-auth-time"),
    ],
)
def test_sensitive_admin_writes_need_a_recent_secret(stack: Stack, sign_in: Any) -> None:
    admin = records.create_user(stack, scopes=tuple(ADMIN_SCOPES)).id
    person = records.create_user(stack)
    app = records.create_client(stack)
    writes = [
        ("POST", f"/admin/users/{person.id}/reset-password", {"password": "another long one 99"}),
        ("DELETE", f"/admin/users/{person.id}/totp", None),
        ("DELETE", f"/admin/users/{person.id}/face", None),
        (
            "PATCH",
            f"/admin/users/{person.id}",
            {"email": f"new-{uuid.uuid4().hex[:6]}@example.com"},
        ),
        ("PATCH", f"/admin/users/{person.id}", {"disabled": True}),
        # a grant that does not make the person an administrator (else: two factors)
        ("PUT", f"/admin/users/{person.id}/scopes", {"scopes": ["idp:connections:read"]}),
        ("POST", f"/admin/clients/{app.client_id}/rotate-secret", None),
        ("PUT", f"/admin/clients/{app.client_id}/scopes", {"scopes": ["openid", "idp:audit:read"]}),
        ("DELETE", f"/admin/users/{person.id}", None),
    ]
    before = fingerprint(stack, person.id, app.client_id)
    claims = sign_in(int(time.time()))
    for method, path, body in writes:
        answer = call(stack, admin, method, path, body, **claims)
        assert answer.status_code == 403, (method, path, answer.text)
        assert answer.json()["code"] == "auth.insufficient_user_authentication"
        challenge = answer.headers["www-authenticate"]
        assert 'error="insufficient_user_authentication"' in challenge
        assert "max_age=" in challenge
        if claims.get("amr") == ["face"]:
            assert "acr_values=" in challenge
    assert fingerprint(stack, person.id, app.client_id) == before

    # The same administrator, signed in with the password just now.
    fresh = {"auth_time": int(time.time()), **PASSWORD}
    for method, path, body in writes:
        answer = call(stack, admin, method, path, body, **fresh)
        assert answer.status_code in (200, 204), (method, path, answer.text)
