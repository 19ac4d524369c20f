"""``idp create-admin``: from the settings, with a generated password, from a file, and a
short password refused cleanly."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

import pytest

from idp_common.crypto.passwords import verify_password
from idp_common.protocol.constants import (
    ADMIN_SCOPES,
)
from tests.integration.test_operator_tool.support import (
    Cli,
    Database,
    admin_state,
    scopes_of_role,
)

pytestmark = pytest.mark.integration


def test_create_admin_from_settings(db: Database, cli: Cli, seeded: str) -> None:
    email = f"Root-{secrets.token_hex(4)}@Example.test"
    password = f"pw-{secrets.token_urlsafe(12)}"

    result = cli("create-admin", SVC_ADMIN_EMAIL=email, SVC_ADMIN_PASSWORD=password)

    assert email in result.stdout
    assert password in result.stdout
    user = db.fetch("SELECT id, email, email_verified, disabled FROM users WHERE email = $1", email)
    assert len(user) == 1
    user_id = user[0]["id"]
    assert user[0]["email_verified"] is True
    assert user[0]["disabled"] is False

    stored = db.fetchval("SELECT hash FROM password_credentials WHERE user_id = $1", user_id)
    assert stored.startswith("$argon2id$")
    assert password not in stored
    assert verify_password(stored, password)
    assert not verify_password(stored, password + "x")

    roles = db.fetch(
        "SELECT r.name FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = $1",
        user_id,
    )
    assert [r["name"] for r in roles] == ["administrator"]

    audit = db.fetch(
        "SELECT action, target_type, actor, detail::text AS detail, to_jsonb(a)::text AS whole "
        "FROM audit_events a WHERE target = $1",
        str(user_id),
    )
    assert [(a["action"], a["target_type"]) for a in audit] == [("user.created", "user")]
    assert audit[0]["actor"]
    assert password not in audit[0]["detail"]
    assert "password" not in json.loads(audit[0]["detail"])
    assert password not in audit[0]["whole"]
    # Nothing anywhere in the database holds the plain password.
    assert not db.fetch(
        "SELECT 1 FROM users u WHERE to_jsonb(u)::text LIKE '%' || $1 || '%'", password
    )

    before = admin_state(db)
    again = cli(
        "create-admin", SVC_ADMIN_EMAIL=email.upper(), SVC_ADMIN_PASSWORD="other-password-1"
    )
    assert "already exists; nothing changed" in again.stdout
    assert "other-password-1" not in again.stdout
    assert admin_state(db) == before
    # make up prints the configured password only when it really signs in.
    same = cli("create-admin", SVC_ADMIN_EMAIL=email, SVC_ADMIN_PASSWORD=password)
    assert "already exists (the configured password signs in)" in same.stdout
    assert password not in same.stdout
    assert admin_state(db) == before


def test_create_admin_generates_a_password(db: Database, cli: Cli, seeded: str) -> None:
    email = f"ops-{secrets.token_hex(4)}@example.test"

    result = cli("create-admin", SVC_ADMIN_EMAIL=email)

    assert email in result.stdout
    match = re.search(r"password:\s*(\S+)", result.stdout)
    assert match, result.stdout
    generated = match.group(1)
    assert len(generated) >= 16
    stored = db.fetchval(
        "SELECT p.hash FROM password_credentials p JOIN users u ON u.id = p.user_id "
        "WHERE u.email = $1",
        email,
    )
    assert stored.startswith("$argon2id$")
    assert generated not in stored
    assert verify_password(stored, generated)
    assert scopes_of_role(db, "administrator") == set(ADMIN_SCOPES)
    assert (
        db.fetchval(
            "SELECT count(*) FROM user_roles ur JOIN users u ON u.id = ur.user_id "
            "JOIN roles r ON r.id = ur.role_id WHERE u.email = $1 AND r.name = 'administrator'",
            email,
        )
        == 1
    )


def test_create_admin_refuses_a_short_password_cleanly(cli: Cli, seeded: str) -> None:
    result = cli(
        "create-admin",
        check=False,
        SVC_ADMIN_EMAIL="short@example.com",
        SVC_ADMIN_PASSWORD="1234567",
    )
    assert result.returncode == 2
    assert "at least 8 characters" in result.stderr
    assert "Traceback" not in result.stderr
    assert "1234567" not in result.stdout + result.stderr


def test_create_admin_reads_the_password_from_a_file(cli: Cli, seeded: str, tmp_path: Path) -> None:
    secret = tmp_path / "admin-password"
    secret.write_text("from-a-file-secret\n")
    result = cli(
        "create-admin", SVC_ADMIN_EMAIL="filed@example.com", SVC_ADMIN_PASSWORD_FILE=str(secret)
    )
    assert "from-a-file-secret" in result.stdout
