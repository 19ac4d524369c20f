"""Attack 2: a public photo signs in as its owner.

Face sign-in accepted any uploaded still image, and a person's photo is public
(``/media/avatars/…``, released as ``picture``): anyone could download it and present it
as the person's face. Worse, a face-only sign-in counted as "recent" for changing the
password or enrolling a new authenticator or face, so the photo was enough to take the
account over. Now the sign-in refuses the person's own published photos (the same decoded
pixels, or a face within 0.2 of a published one), a face alone is its own weaker level
(``acr`` ``urn:idp:acr:face``, ``amr: ["face"]``), and credential changes need a recent
sign-in that included the password or a one-time code: a face-only token gets 403
``insufficient_user_authentication`` naming the levels that will do, and a password
sign-in then succeeds.

The administration part: an administrator's token from a face-only sign-in (or any old
one) could reset passwords, clear authenticators and grant scopes through ``/admin/*``.
The administrator's sensitive writes (credential changes on anyone, the grant writes, a
client's secret: docs/admin-api.md "Granting and credentials") now need a sign-in within
``SVC_RECENT_SIGN_IN_MAX_AGE`` seconds that included the password or a one-time code; a
face-only or old sign-in gets the RFC 9470 challenge and changes nothing.
"""

from __future__ import annotations

import base64
import io
import time
import uuid
from typing import Any

import httpx
import pytest
from PIL import Image

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import infra, oidc, records, tokens
from tests.harness.faces import enrol_face, face
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e
ACCOUNT_WRITE = "idp:account:write"


def publish_photo(stack: Stack, person: records.TestUser, photo: str) -> bytes:
    """The person sets ``photo`` as their profile photo; what anyone can then download."""
    with oidc.Browser(stack) as browser:
        app = records.create_client(stack, scopes=("openid", ACCOUNT_WRITE), skip_consent=True)
        authorization = oidc.Authorization(app)
        code = sign_in_with_password(browser, authorization, person)
        token = oidc.exchange(stack, authorization, code)["access_token"]
        answer = browser.put(
            "/entity/profile/photo",
            content=face(photo),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "image/jpeg"},
        )
        assert answer.status_code == 200, answer.text
        picture = answer.json()["picture"]
    public = httpx.get(picture, timeout=20)  # no token: the photo is public
    assert public.status_code == 200
    return public.content


def sign_in_with_password(
    browser: oidc.Browser, authorization: oidc.Authorization, person: records.TestUser, **extra: str
) -> str:
    params = {**authorization.params(f"openid {ACCOUNT_WRITE}"), **extra}
    to_login = browser.get("/oauth2/authorize", params=params)
    challenge = oidc.query_of(to_login.headers["location"])["challenge"]
    step = browser.post(
        "/api/v1/auth/login",
        json={"challenge": challenge, "email": person.email, "password": person.password},
    )
    assert step.status_code == 200 and step.json()["next"] == "done", step.text
    return browser._code_from(browser.get(step.json()["redirectTo"]), authorization)


def face_attempt(
    browser: oidc.Browser, authorization: oidc.Authorization, email: str, image: bytes
) -> tuple[str, httpx.Response]:
    to_login = browser.get(
        "/oauth2/authorize", params=authorization.params(f"openid {ACCOUNT_WRITE}")
    )
    challenge = oidc.query_of(to_login.headers["location"])["challenge"]
    text = "data:image/jpeg;base64," + base64.b64encode(image).decode()
    step = browser.post(
        "/api/v1/auth/biometric", json={"challenge": challenge, "email": email, "image": text}
    )
    return challenge, step


def rescaled_copy(image: bytes) -> bytes:
    """What an attacker does to a downloaded photo: a smaller JPEG of it."""
    picture = Image.open(io.BytesIO(image)).convert("RGB")
    smaller = picture.resize((picture.width * 3 // 4, picture.height * 3 // 4))
    out = io.BytesIO()
    smaller.save(out, "JPEG", quality=80)
    return out.getvalue()


@pytest.mark.face
def test_the_published_photo_does_not_sign_in_as_its_owner(stack: Stack) -> None:
    person = records.create_user(stack)
    enrol_face(stack, person, "biden1.jpg")
    downloaded = publish_photo(stack, person, "biden2.jpg")
    app = records.create_client(stack, scopes=("openid", ACCOUNT_WRITE), skip_consent=True)
    for image in (downloaded, rescaled_copy(downloaded)):
        with oidc.Browser(stack) as browser:
            _, step = face_attempt(browser, oidc.Authorization(app), person.email, image)
        assert step.status_code == 401, step.text
        assert step.json()["code"] == "auth.invalid_credentials"
        assert "svc_session" not in browser.cookies


@pytest.mark.face
def test_another_photo_of_the_person_still_signs_in(stack: Stack) -> None:
    person = records.create_user(stack)
    enrol_face(stack, person, "obama1.jpg")
    publish_photo(stack, person, "obama2.jpg")
    app = records.create_client(stack, scopes=("openid", ACCOUNT_WRITE), skip_consent=True)
    with oidc.Browser(stack) as browser:
        _, step = face_attempt(
            browser, oidc.Authorization(app), person.email, face("obama3_480p.jpg")
        )
    assert step.status_code == 200, step.text


def forget_fingerprints(stack: Stack, person: records.TestUser) -> None:
    """As on a deployment upgraded from before fingerprints existed (or a photo published
    while the face stack was off): the photo is public, nothing remembers it."""
    records.query(stack, "DELETE FROM photo_fingerprints WHERE user_id = $1", uuid.UUID(person.id))


@pytest.mark.face
def test_a_photo_published_without_a_fingerprint_is_checked_at_sign_in(stack: Stack) -> None:
    person = records.create_user(stack)
    enrol_face(stack, person, "biden1.jpg")
    downloaded = publish_photo(stack, person, "biden2.jpg")
    forget_fingerprints(stack, person)
    app = records.create_client(stack, scopes=("openid", ACCOUNT_WRITE), skip_consent=True)
    with oidc.Browser(stack) as browser:
        _, step = face_attempt(browser, oidc.Authorization(app), person.email, downloaded)
    assert step.status_code == 401, step.text
    remembered = records.query(
        stack, "SELECT picture FROM photo_fingerprints WHERE user_id = $1", uuid.UUID(person.id)
    )
    assert len(remembered) == 1 and remembered[0]["picture"]


@pytest.mark.face
def test_without_the_photo_store_an_unchecked_photo_means_503(stack: Stack) -> None:
    """The photo cannot be read to fingerprint it: no face is compared, even the person's
    own live one (a public photo might be what is shown), and nothing signs in."""
    person = records.create_user(stack)
    enrol_face(stack, person, "biden1.jpg")
    publish_photo(stack, person, "biden2.jpg")
    forget_fingerprints(stack, person)
    app = records.create_client(stack, scopes=("openid",), skip_consent=True)
    closed = f"http://127.0.0.1:{infra.closed_port()}"
    with stack.extra_service("authui-api", {"SVC_S3_ENDPOINT_URL": closed}) as authui:
        to_login = httpx.get(
            stack.service_url("token") + "/oauth2/authorize",
            params=oidc.Authorization(app).params("openid"),
            headers={"X-Forwarded-For": "198.18.77.1"},
            timeout=20,
        )
        challenge = oidc.query_of(to_login.headers["location"])["challenge"]
        own = base64.b64encode(rescaled_copy(face("biden1.jpg"))).decode()
        answer = httpx.post(
            authui + "/api/v1/auth/biometric",
            json={"challenge": challenge, "email": person.email, "image": own},
            headers={"X-Forwarded-For": "198.18.77.2"},
            timeout=60,
        )
    assert answer.status_code == 503, answer.text
    assert answer.json()["code"] == "face.photo_unchecked"
    assert int(answer.headers["retry-after"]) >= 1
    assert "set-cookie" not in answer.headers


def face_only_token(stack: Stack, person: records.TestUser) -> tuple[oidc.Browser, dict[str, Any]]:
    app = records.create_client(stack, scopes=("openid", ACCOUNT_WRITE), skip_consent=True)
    browser = oidc.Browser(stack)
    authorization = oidc.Authorization(app)
    _, step = face_attempt(browser, authorization, person.email, face("kit_harington2.jpg"))
    assert step.status_code == 200 and step.json()["next"] == "done", step.text
    code = browser._code_from(browser.get(step.json()["redirectTo"]), authorization)
    return browser, oidc.exchange(stack, authorization, code)


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
        assert 'acr_values="urn:idp:acr:1fa urn:idp:acr:2fa"' in challenge
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


# --- the administration part ---------------------------------------------------------

FACE_ONLY = {"amr": ["face"], "acr": "urn:idp:acr:face"}
PASSWORD = {"amr": ["pwd"], "acr": "urn:idp:acr:1fa"}


def call(stack: Stack, admin: str, method: str, path: str, json: Any = None, **claims: Any):
    token = tokens.mint(
        stack.key_dir, issuer=stack.issuer, scopes=ADMIN_SCOPES, subject=admin, **claims
    )
    headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": "198.18.2.2"}
    return httpx.request(
        method, stack.service_url("admin") + path, json=json, headers=headers, timeout=20
    )


def fingerprint(stack: Stack, user_id: str, client_id: str) -> dict[str, object]:
    """What the writes below would change."""
    key = uuid.UUID(user_id)
    one = records.query
    return {
        "hash": one(stack, "SELECT hash FROM password_credentials WHERE user_id = $1", key),
        "scopes": one(stack, "SELECT scope_id FROM user_scopes WHERE user_id = $1", key),
        "user": one(stack, "SELECT email, disabled FROM users WHERE id = $1", key),
        "secret": one(
            stack,
            "SELECT digest FROM client_secrets s JOIN clients c ON c.id = s.client_pk"
            " WHERE c.client_id = $1",
            client_id,
        ),
    }


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
