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
import uuid

import httpx
import pytest

from tests.harness import infra, oidc, records
from tests.harness.faces import enrol_face, face
from tests.harness.stack import Stack
from tests.security.face_published_photo_support import (
    ACCOUNT_WRITE,
    face_attempt,
    forget_fingerprints,
    publish_photo,
    rescaled_copy,
)

pytestmark = pytest.mark.e2e


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
