"""Helpers shared by the attack 2 tests (a public photo signs in as its owner): publish a
photo, sign in with a password or a face, forget fingerprints, call with a token."""

from __future__ import annotations

import base64
import io
import uuid
from typing import Any

import httpx
from PIL import Image

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import oidc, records, tokens
from tests.harness.api import signed_in_session
from tests.harness.faces import face
from tests.harness.stack import Stack

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


def forget_fingerprints(stack: Stack, person: records.TestUser) -> None:
    """As on a deployment upgraded from before fingerprints existed (or a photo published
    while the face stack was off): the photo is public, nothing remembers it."""
    records.query(stack, "DELETE FROM photo_fingerprints WHERE user_id = $1", uuid.UUID(person.id))


def face_only_token(stack: Stack, person: records.TestUser) -> tuple[oidc.Browser, dict[str, Any]]:
    app = records.create_client(stack, scopes=("openid", ACCOUNT_WRITE), skip_consent=True)
    browser = oidc.Browser(stack)
    authorization = oidc.Authorization(app)
    _, step = face_attempt(browser, authorization, person.email, face("kit_harington2.jpg"))
    assert step.status_code == 200 and step.json()["next"] == "done", step.text
    code = browser._code_from(browser.get(step.json()["redirectTo"]), authorization)
    return browser, oidc.exchange(stack, authorization, code)


FACE_ONLY = {"amr": ["face"], "acr": "urn:idp:acr:face"}
PASSWORD = {"amr": ["pwd"], "acr": "urn:idp:acr:1fa"}


def call(stack: Stack, admin: str, method: str, path: str, json: Any = None, **claims: Any):
    """As ``admin``, signed in on a live session (``claims`` say how and when)."""
    session = {"sid": signed_in_session(stack, admin)}
    token = tokens.mint(
        stack.key_dir,
        issuer=stack.issuer,
        scopes=ADMIN_SCOPES,
        subject=admin,
        **{**session, **claims},
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
