"""Attack 2 (a), administration part: an administrator's face is not enough for sensitive
writes.

A person's photo is public (``/media/avatars/...``, the ``picture`` claim), and face
sign-in accepted any still image; an administrator's token from such a sign-in (or any
old one, hours after the sign-in) could reset passwords, clear authenticators and grant
scopes through ``/admin/*``: every route checked only the token's permission.

What must hold now: the administrator's sensitive writes (credential changes on anyone,
the grant writes, a client's secret: the list is in docs/admin-api.md "Granting and
credentials") need a sign-in within ``SVC_RECENT_SIGN_IN_MAX_AGE`` seconds that included
the password or a one-time code. A face-only sign-in (``amr: ["face"]``, ``acr``
``urn:idp:acr:face``) or an old one gets 403 with the RFC 9470 challenge
(``error="insufficient_user_authentication"``, and for the face ``acr_values``) and
changes nothing; the same administrator signed in with the password just now succeeds.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import records, tokens
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration

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
