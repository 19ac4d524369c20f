"""``idp cleanup``: only rows an hour past their expiry are deleted."""

from __future__ import annotations

import re
import secrets

import pytest

from tests.integration.test_operator_tool.support import (
    CODES,
    REFRESH_TOKENS,
    RESET_TOKENS,
    Cli,
    Database,
    _kept,
    insert_cleanup_rows,
    numbers,
    remaining,
)

pytestmark = pytest.mark.integration


def test_cleanup_deletes_only_rows_an_hour_past_expiry(db: Database, cli: Cli, seeded: str) -> None:
    tag = secrets.token_hex(4)
    client_pk, user_id = insert_cleanup_rows(db, tag)
    db.execute(
        "INSERT INTO audit_events (occurred_at, action, status_code, detail) "
        "VALUES (now() - interval '400 days', 'test.ancient', 200, '{}'), "
        "(now() - interval '2 hours', 'test.recent', 200, '{}')"
    )
    audit_before = db.rows_as_text("audit_events", "id")
    assert len(audit_before) >= 2

    result = cli("cleanup")

    out = result.stdout
    assert re.search(r"\b1 authorization codes?\b", out), out
    assert re.search(r"\b2 refresh tokens?\b", out), out
    assert re.search(r"\b2 password reset tokens?\b", out), out
    assert remaining(db, tag) == {
        "authorization_codes": _kept(CODES),
        "refresh_tokens": _kept(REFRESH_TOKENS),
        "password_reset_tokens": _kept(RESET_TOKENS),
    }
    # The audit log is never deleted: every earlier row is still there, unchanged.
    audit_after = db.rows_as_text("audit_events", "id")
    assert audit_after[: len(audit_before)] == audit_before
    ran = db.fetch("SELECT detail FROM audit_events WHERE action = 'cleanup.ran'")
    assert len(ran) == len(audit_after) - len(audit_before) == 1
    # The client and user the tokens belong to are untouched.
    assert db.fetchval("SELECT count(*) FROM clients WHERE id = $1", client_pk) == 1
    assert db.fetchval("SELECT count(*) FROM users WHERE id = $1", user_id) == 1

    again = cli("cleanup")
    assert all(n == 0 for n in numbers(again.stdout)), again.stdout
    assert remaining(db, tag)["refresh_tokens"] == _kept(REFRESH_TOKENS)
    assert len(db.rows_as_text("audit_events", "id")) == len(audit_after) + 1
