"""Calling the administration API in tests, and the checks every route shares.

Spec part 4 and §7, issue 4 acceptance 1: each route answers its success, 401 without a
(valid) token, 403 with a valid token lacking the route's one permission, 404 for a
missing id, and 422 naming the field for bad input, always as problem+json.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import tokens
from tests.harness.records import query
from tests.harness.stack import Stack

PROBLEM_JSON = "application/problem+json"
ALL_ADMIN_SCOPES = tuple(ADMIN_SCOPES)
MISSING_ID = "00000000-0000-4000-8000-000000000000"


def fresh_address() -> str:
    n = uuid.uuid4().int
    return f"198.19.{n % 250}.{(n >> 8) % 250 + 1}"


class AdminApi:
    """httpx against the admin service; every call carries a token with ``scopes``
    (all admin permissions by default) for the subject ``actor``."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.actor = str(uuid.uuid4())
        self.client = httpx.Client(base_url=stack.service_url("admin"), timeout=20)

    def close(self) -> None:
        self.client.close()

    def token(self, scopes: tuple[str, ...] | list[str] = ALL_ADMIN_SCOPES) -> str:
        return tokens.mint(
            self.stack.key_dir, issuer=self.stack.issuer, scopes=scopes, subject=self.actor
        )

    def call(
        self,
        method: str,
        path: str,
        *,
        scopes: tuple[str, ...] | list[str] | None = ALL_ADMIN_SCOPES,
        json: Any = None,
        params: dict[str, Any] | None = None,
        address: str | None = None,
    ) -> httpx.Response:
        """``scopes=None`` sends no token at all."""
        headers = {"X-Forwarded-For": address or fresh_address()}
        if scopes is not None:
            headers["Authorization"] = f"Bearer {self.token(scopes)}"
        return self.client.request(method, path, json=json, params=params, headers=headers)

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
    api: AdminApi, method: str, path: str, permission: str, *, json: Any = None
) -> None:
    """401 without a token and with a bad one; 403 with every admin permission but this one."""
    assert_problem(api.call(method, path, scopes=None, json=json), 401)
    bad = api.client.request(
        method,
        path,
        json=json,
        headers={"Authorization": "Bearer not.a.token", "X-Forwarded-For": fresh_address()},
    )
    assert_problem(bad, 401)
    others = [s for s in ALL_ADMIN_SCOPES if s != permission]
    denied = api.call(method, path, scopes=others, json=json)
    assert_problem(denied, 403)
    assert permission in denied.headers["www-authenticate"]
