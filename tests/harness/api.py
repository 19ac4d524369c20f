"""Calling the admin and self-service APIs in tests, and the checks every route shares.

Spec part 4 and §7: each route answers its success, 401 without a (valid) token, 403 with
a valid token lacking the route's one permission, 404 for a missing id, 422 naming the
field for bad input, always as problem+json. Requests go straight to the service (from
127.0.0.1, a trusted sender) with a fresh ``X-Forwarded-For`` each, so that the
per-address limit on failed authentications never mixes tests.

The provider's API checks who calls, not only what the token says (issue 19): the subject
of a person's token must be a person who exists and is not disabled, grants give only what
that person holds, and sensitive writes need a recent sign-in. :func:`create_administrator`
writes a real person holding given scopes, and :data:`TWO_FACTOR_SIGN_IN` are the claims
of a sign-in with a password and a one-time code; an :class:`ApiClient` with
``fresh_sign_in`` stamps ``auth_time`` at each token it mints, and gives a write's token a
live browser session of the actor to stand on (a sign-in counts for a sensitive change only
while its session stands).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

import httpx

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import tokens
from tests.harness.records import create_browser_session, query
from tests.harness.stack import Stack

PROBLEM_JSON = "application/problem+json"
MISSING_ID = "00000000-0000-4000-8000-000000000000"
#: ``amr`` and ``acr`` of a sign-in with the password and an authenticator code (RFC 8176).
TWO_FACTOR_SIGN_IN: dict[str, Any] = {"amr": ["pwd", "otp", "mfa"], "acr": "urn:idp:acr:2fa"}


def create_administrator(stack: Stack, scopes: Sequence[str]) -> str:
    """A person (no password: they never sign in) granted ``scopes`` directly; their id."""
    n = uuid.uuid4().hex[:12]
    rows = query(
        stack,
        "WITH person AS ("
        " INSERT INTO users (email, username, display_name, email_verified)"
        " VALUES ($1, $2, 'Test administrator', true) RETURNING id),"
        " granted AS (INSERT INTO user_scopes (user_id, scope_id)"
        "  SELECT person.id, scopes.id FROM person, scopes WHERE scopes.value = ANY($3::text[]))"
        " SELECT id FROM person",
        f"admin-{n}@example.com",
        f"admin-{n}",
        list(scopes),
    )
    return str(rows[0]["id"])


def signed_in_administrator(stack: Stack) -> tuple[str, str]:
    """A real person holding every administration scope, and a token of theirs from a
    two-factor sign-in just now (what the sensitive administration routes ask for)."""
    person = create_administrator(stack, ADMIN_SCOPES)
    return person, administrator_token(stack, person)


def administrator_token(stack: Stack, person: str) -> str:
    """A token of ``person`` with every administration scope, from a two-factor sign-in
    just now on a new live session of theirs."""
    return tokens.mint(
        stack.key_dir,
        issuer=stack.issuer,
        scopes=ADMIN_SCOPES,
        subject=person,
        auth_time=int(time.time()),
        sid=signed_in_session(stack, person),
        **TWO_FACTOR_SIGN_IN,
    )


def signed_in_session(stack: Stack, person: str) -> str:
    """The sid of a browser session of ``person`` signed in just now: a sensitive change
    needs a sign-in that stands on a live session."""
    _, session = create_browser_session(stack, person)
    return session.sid


def _is_person(subject: str) -> bool:
    try:
        uuid.UUID(subject)
    except ValueError:
        return False
    return True


def fresh_address() -> str:
    n = uuid.uuid4().int
    return f"198.19.{n % 250}.{(n >> 8) % 250 + 1}"


class ApiClient:
    """httpx against one service; every call carries a token for ``actor`` with
    ``scopes`` (``all_scopes`` by default) and the extra claims given. ``fresh_sign_in``:
    each token's ``auth_time`` is the moment it is minted (unless a claim sets it);
    ``base_url``: another process of the service (one with other settings)."""

    def __init__(
        self,
        stack: Stack,
        service: str,
        actor: str,
        all_scopes: Sequence[str],
        *,
        fresh_sign_in: bool = False,
        base_url: str | None = None,
    ) -> None:
        self.stack = stack
        self.actor = actor
        self.all_scopes = tuple(all_scopes)
        self.claims: dict[str, Any] = {}
        self.fresh_sign_in = fresh_sign_in
        self.client = httpx.Client(base_url=base_url or stack.service_url(service), timeout=20)

    def close(self) -> None:
        self.client.close()

    def token(self, scopes: Sequence[str] | None = None, **claims: Any) -> str:
        signed_in = {"auth_time": int(time.time())} if self.fresh_sign_in else {}
        return tokens.mint(
            self.stack.key_dir,
            issuer=self.stack.issuer,
            scopes=self.all_scopes if scopes is None else scopes,
            subject=self.actor,
            **{**signed_in, **self.claims, **claims},
        )

    def write_claims(self) -> dict[str, Any]:
        """Claims the tokens of writes carry besides :attr:`claims`: with ``fresh_sign_in``,
        a person's write stands on a browser session signed in just now (a sensitive change
        needs one). Reads carry none, so they add no session to what a test counts."""
        if not self.fresh_sign_in or "sid" in self.claims or not _is_person(self.actor):
            return {}
        return {"sid": signed_in_session(self.stack, self.actor)}

    def call(
        self,
        method: str,
        path: str,
        *,
        scopes: Sequence[str] | bool | None = True,
        json: Any = None,
        params: dict[str, Any] | None = None,
        address: str | None = None,
        headers: dict[str, str] | None = None,
        **body: Any,
    ) -> httpx.Response:
        """``scopes=None`` sends no token at all; ``True`` (default) every scope."""
        sent = {"X-Forwarded-For": address or fresh_address(), **(headers or {})}
        if scopes is not None:
            granted = None if scopes is True else scopes
            extra = self.write_claims() if method.upper() != "GET" else {}
            sent["Authorization"] = f"Bearer {self.token(granted, **extra)}"
        return self.client.request(method, path, json=json, params=params, headers=sent, **body)

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.call("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.call("POST", path, **kw)

    def put(self, path: str, **kw: Any) -> httpx.Response:
        return self.call("PUT", path, **kw)

    def patch(self, path: str, **kw: Any) -> httpx.Response:
        return self.call("PATCH", path, **kw)

    def delete(self, path: str, **kw: Any) -> httpx.Response:
        return self.call("DELETE", path, **kw)

    def audit_rows(self, target: str) -> list[dict[str, object]]:
        """Audit rows about ``target``, oldest first."""
        return query(
            self.stack,
            "SELECT action, actor, target_type, target, ip, status_code, detail "
            "FROM audit_events WHERE target = $1 ORDER BY id",
            target,
        )


def assert_problem(response: httpx.Response, status: int, *, field: str | None = None) -> None:
    """An RFC 9457 body with ``status``; with ``field``, one error names it."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM_JSON), response.headers
    body = response.json()
    assert body["status"] == status
    if field is not None:
        named = [e["field"] for e in body.get("errors", [])]
        assert field in named, body


def assert_guarded(
    api: ApiClient, method: str, path: str, permission: str, *, json: Any = None
) -> None:
    """401 without a token and with a bad one; 403 with every permission but this one."""
    assert_problem(api.call(method, path, scopes=None, json=json), 401)
    bad = api.client.request(
        method,
        path,
        json=json,
        headers={"Authorization": "Bearer not.a.token", "X-Forwarded-For": fresh_address()},
    )
    assert_problem(bad, 401)
    others = [s for s in api.all_scopes if s != permission]
    denied = api.call(method, path, scopes=others, json=json)
    assert_problem(denied, 403)
    assert permission in denied.headers["www-authenticate"]


def now() -> int:
    return int(time.time())
