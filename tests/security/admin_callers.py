"""Callers of the admin service for the authority tests, and what they leave in the
database: the ``access.denied`` rows of a caller."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx

from tests.harness import records, tokens
from tests.harness.api import TWO_FACTOR_SIGN_IN, fresh_address, signed_in_session
from tests.harness.stack import Stack


class Caller:
    """Straight to the admin service (a trusted sender, a fresh address each call) as
    ``subject`` holding ``scopes``. A person (``subject`` a UUID) signed in just now on a
    live browser session, with two factors unless ``claims`` say otherwise; a machine
    client (``subject`` its client_id) has no session."""

    def __init__(self, stack: Stack, subject: str, scopes: tuple[str, ...], **claims: Any):
        self.stack, self.subject, self.scopes, self.claims = stack, subject, scopes, claims

    def _sign_in(self) -> dict[str, Any]:
        try:
            uuid.UUID(self.subject)
        except ValueError:
            return {"client_id": self.subject}
        sid = signed_in_session(self.stack, self.subject)
        return {"auth_time": int(time.time()), "sid": sid, **TWO_FACTOR_SIGN_IN}

    def call(self, method: str, path: str, json: Any = None) -> httpx.Response:
        token = tokens.mint(
            self.stack.key_dir,
            issuer=self.stack.issuer,
            scopes=self.scopes,
            subject=self.subject,
            **{**self._sign_in(), **self.claims},
        )
        headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": fresh_address()}
        return httpx.request(
            method, self.stack.service_url("admin") + path, json=json, headers=headers, timeout=20
        )


def rows(stack: Stack, sql: str, *args: object) -> list[dict[str, object]]:
    return records.query(stack, sql, *args)


def denials(stack: Stack, actor: str) -> list[dict[str, object]]:
    """The caller's ``access.denied`` rows, oldest first: status, problem code, detail."""
    return rows(
        stack,
        "SELECT status_code, detail->>'code' AS code, detail::text AS detail FROM audit_events"
        " WHERE action = 'access.denied' AND actor = $1 ORDER BY id",
        actor,
    )
