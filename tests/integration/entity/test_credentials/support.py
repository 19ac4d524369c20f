"""Helpers shared by the ``/entity/credentials`` tests: stored rows, audit actions, sign-ins."""

from __future__ import annotations

import uuid
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.harness.records import (
    TestUser as Person,
)
from tests.harness.records import (
    query,
)
from tests.harness.stack import Stack

PASSWORD_PATH = "/entity/credentials/password"
EMAIL_PATH = "/entity/credentials/email"
NEW_PASSWORD = "an entirely new passphrase 42"
STEP_UP = 'Bearer error="insufficient_user_authentication", max_age=300'


def stored_hash(stack: Stack, person: Person) -> str:
    rows = query(
        stack, "SELECT hash FROM password_credentials WHERE user_id = $1", uuid.UUID(person.id)
    )
    return str(rows[0]["hash"])


def user_row(stack: Stack, person: Person) -> dict[str, object]:
    return query(
        stack, "SELECT email, email_verified FROM users WHERE id = $1", uuid.UUID(person.id)
    )[0]


def audit_actions(stack: Stack, person: Person) -> list[tuple[object, object, object]]:
    rows = query(
        stack,
        "SELECT action, status_code, detail FROM audit_events WHERE actor = $1 ORDER BY id",
        person.id,
    )
    return [(r["action"], r["status_code"], r["detail"]) for r in rows]


def refresh(stack: Stack, client_id: str, secret: str | None, token: str) -> httpx.Response:
    return httpx.post(
        stack.proxy_url + "/oauth2/token",
        auth=(client_id, secret or ""),
        data={"grant_type": "refresh_token", "refresh_token": token},
        timeout=10,
    )


def silent_sign_in(stack: Stack, cookie: str, client_id: str, redirect_uri: str) -> dict[str, str]:
    """``prompt=none`` with the browser's cookie: the query the client gets back."""
    answer = httpx.get(
        stack.proxy_url + "/oauth2/authorize",
        params={
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "scope": "openid",
            "state": "s",
            "prompt": "none",
        },
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=10,
    )
    assert answer.status_code in (302, 303), answer.text
    return {k: v[0] for k, v in parse_qs(urlsplit(answer.headers["location"]).query).items()}
