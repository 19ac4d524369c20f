"""A stale token plants a passkey after the owner changed the password.

The attack: someone who learned the password signs in for real (a browser session: the
access token carries its ``sid`` and a fresh ``auth_time``) and keeps the access token.
The owner, in a session of their own, changes the password (``POST
/entity/credentials/password``, 204): every session of theirs ends and every refresh token
is revoked. The attacker's access token still answered 200 at ``/entity/profile`` and
passed the recent-sign-in gate of ``POST /entity/passkeys/registration-options``, ``POST
/entity/totp/enroll`` and ``PUT /entity/face`` for the rest of its lifetime: a passkey or
an authenticator planted then survives the password change. An administrator's "end
sessions" and a used password-reset link left the token working the same way.

What must hold: once the password changed, the password-reset link was used, or an
administrator ended the person's sessions, the token is refused at each of these routes
with 401 ``WWW-Authenticate: Bearer ... error="invalid_token"``. The bearer guard runs
before the handler: ``PUT /entity/face`` answers 401 even where the deployment has no face
stack (there its handler answers 503, as on this test stack; with one, the old code enrolled
the attacker's face: 200).

Every token here comes from a real sign-in (``/oauth2/authorize``, the sign-in API and the
token endpoint); the administrator is the harness's (a real person whose token the test
signs with the stack's key, as every admin API test does): the token under attack is the
person's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.harness import records
from tests.harness.api import fresh_address
from tests.harness.faces import face
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.signin_fixtures import mail_part
from tests.security import token_standing_support as ts

pytestmark = pytest.mark.integration

NEW_PASSWORD = "a copper kettle sings at dawn 58"
#: The routes the attacker's token reaches for, with the body each one takes.
ROUTES = (
    ("GET", "/entity/profile"),
    ("POST", "/entity/passkeys/registration-options"),
    ("POST", "/entity/totp/enroll"),
    ("PUT", "/entity/face"),
)


@pytest.fixture(scope="module")
def app(stack: Stack) -> records.TestClient:
    return ts.self_service_app(stack)


@pytest.fixture
def admin(stack: Stack) -> Iterator[AdminApi]:
    api = AdminApi(stack)
    yield api
    api.close()


def attempt(stack: Stack, method: str, path: str, token: str) -> httpx.Response:
    """What the attacker sends to ``path``: the face route gets a photo of a face."""
    if path == "/entity/face":
        upload = {"file": ("face.jpg", face("obama1.jpg"), "image/jpeg")}
        return ts.entity(stack, method, path, token, files=upload)
    return ts.entity(stack, method, path, token)


def outcomes(stack: Stack, token: str, routes: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """What each route answers ``token`` (:func:`ts.outcome`)."""
    return {
        f"{method} {path}": ts.outcome(attempt(stack, method, path, token))
        for method, path in routes
    }


def all_refused(routes: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {f"{method} {path}": ts.REFUSED for method, path in routes}


def test_the_owners_password_change_ends_the_attackers_access_token(
    stack: Stack, app: records.TestClient
) -> None:
    owner = records.create_user(stack)
    attacker = ts.sign_in(stack, app, owner)  # signed in with the learned password
    mine = ts.sign_in(stack, app, owner)  # the owner, in a session of their own
    assert attacker.sid != mine.sid
    assert ts.entity(stack, "GET", ts.PROFILE, attacker.access_token).status_code == 200

    changed = ts.entity(
        stack,
        "POST",
        "/entity/credentials/password",
        mine.access_token,
        json={"currentPassword": owner.password, "newPassword": NEW_PASSWORD},
    )
    assert changed.status_code == 204, changed.text
    assert not records.session_exists(stack, attacker.sid)

    assert outcomes(stack, attacker.access_token, ROUTES) == all_refused(ROUTES)


def test_an_administrators_end_sessions_ends_the_access_token(
    stack: Stack, app: records.TestClient, admin: AdminApi
) -> None:
    person = records.create_user(stack)
    attacker = ts.sign_in(stack, app, person)
    assert ts.entity(stack, "GET", ts.PROFILE, attacker.access_token).status_code == 200

    ended = admin.delete(f"/admin/users/{person.id}/sessions")
    assert ended.status_code == 204, ended.text
    assert not records.session_exists(stack, attacker.sid)

    routes = ROUTES[:2]  # a read and a step-up write
    assert outcomes(stack, attacker.access_token, routes) == all_refused(routes)


def test_a_used_password_reset_link_ends_the_access_token(
    extra_processes: Stack, app: records.TestClient, tmp_path: Path
) -> None:
    stack = extra_processes
    smtp = ts.start_mail_catcher(stack, tmp_path)
    signin = ts.start_mailing(stack, "authui-api", smtp)
    person = records.create_user(stack)
    attacker = ts.sign_in(stack, app, person)
    assert ts.entity(stack, "GET", ts.PROFILE, attacker.access_token).status_code == 200

    # The owner asks for a reset link and uses it.
    with httpx.Client(base_url=signin.url + "/api/v1/auth", timeout=20) as client:
        client.headers["X-Forwarded-For"] = fresh_address()
        asked = client.post("/password-reset", json={"email": person.email})
        assert asked.status_code == 202, asked.text
        mail = ts.mail_to(tmp_path, person.email)
        link = next(w for w in mail_part(mail).split() if w.startswith(f"{stack.issuer}/auth/"))
        token = parse_qs(urlsplit(link).query)["token"][0]
        used = client.post(
            "/password-reset/confirm", json={"token": token, "password": NEW_PASSWORD}
        )
        assert used.status_code == 204, used.text
    assert not records.session_exists(stack, attacker.sid)

    routes = ROUTES[:2]
    assert outcomes(stack, attacker.access_token, routes) == all_refused(routes)
