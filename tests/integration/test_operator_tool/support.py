"""Helpers shared by the operator tool's tests: a fresh database, the ``idp`` command line
run as a subprocess, and the rows the tests read back."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import asyncpg

from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    SELF_SERVICE_SCOPES,
)
from tests.harness import infra

ROOT = Path(__file__).resolve().parents[3]
ISSUER = "https://login.example.test"
IDP_SCOPES = (*ADMIN_SCOPES, *SELF_SERVICE_SCOPES)
CLI_TIMEOUT = 120
BAD_SETTINGS_TIMEOUT = 60
# Every table the catalogue seed writes, with the order that makes a snapshot comparable.
CATALOGUE_TABLES = {
    "apis": "id",
    "scopes": "id",
    "roles": "id",
    "role_scopes": "role_id, scope_id",
    "clients": "id",
    "client_scopes": "client_pk, scope_id",
}
T = TypeVar("T")
Cli = Callable[..., subprocess.CompletedProcess[str]]


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine in a thread of its own (never touches the test session's loop)."""
    return infra.run(coro)


@dataclass(frozen=True)
class Database:
    name: str

    @property
    def url(self) -> str:
        """What the services read from ``SVC_DATABASE_URL``."""
        return infra.database_url(self.name)

    @property
    def dsn(self) -> str:
        """The same database as asyncpg wants it."""
        return self.url.replace("postgresql+asyncpg://", "postgresql://")

    def fetch(self, query: str, *args: Any) -> list[asyncpg.Record]:
        async def work() -> list[asyncpg.Record]:
            conn = await asyncpg.connect(self.dsn)
            try:
                return list(await conn.fetch(query, *args))
            finally:
                await conn.close()

        return run_async(work())

    def fetchval(self, query: str, *args: Any) -> Any:
        rows = self.fetch(query, *args)
        assert len(rows) == 1, (query, rows)
        return rows[0][0]

    def execute(self, query: str, *args: Any) -> None:
        async def work() -> None:
            conn = await asyncpg.connect(self.dsn)
            try:
                await conn.execute(query, *args)
            finally:
                await conn.close()

        run_async(work())

    def rows_as_text(self, table: str, order_by: str) -> list[str]:
        """Every row of ``table``, every column (timestamps included), as JSON text."""
        # Table and column names come from this module's constants, never from input.
        query = f"SELECT to_jsonb(t)::text FROM {table} t ORDER BY {order_by}"  # noqa: S608
        return [r[0] for r in self.fetch(query)]

    def snapshot(self, tables: dict[str, str]) -> dict[str, list[str]]:
        return {table: self.rows_as_text(table, order) for table, order in tables.items()}


@contextmanager
def fresh_database() -> Iterator[Database]:
    database = Database(f"idp_t_{secrets.token_hex(6)}")
    run_async(infra.create_database(database.name))
    try:
        yield database
    finally:
        run_async(infra.drop_database(database.name))


def base_env(database: Database, key_dir: Path, **settings: str) -> dict[str, str]:
    """The parent's environment without any ``SVC_*`` variable, plus the ones given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    env.update(
        SVC_DATABASE_URL=database.url,
        SVC_KEY_DIR=str(key_dir),
        SVC_ISSUER=ISSUER,
        SVC_LOG_LEVEL="WARNING",
    )
    env.update(settings)
    return env


def run_idp(
    env: dict[str, str], *args: str, check: bool = True, timeout: float = CLI_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "idp_common.operations.cli", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if check:
        assert result.returncode == 0, (
            f"idp {' '.join(args)} exited {result.returncode}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
    return result


def numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", text)]


def scopes_of_role(db: Database, role: str) -> set[str]:
    rows = db.fetch(
        "SELECT s.value FROM role_scopes rs JOIN roles r ON r.id = rs.role_id "
        "JOIN scopes s ON s.id = rs.scope_id WHERE r.name = $1",
        role,
    )
    return {r["value"] for r in rows}


def scopes_of_client(db: Database, client_id: str) -> set[str]:
    rows = db.fetch(
        "SELECT s.value FROM client_scopes cs JOIN clients c ON c.id = cs.client_pk "
        "JOIN scopes s ON s.id = cs.scope_id WHERE c.client_id = $1",
        client_id,
    )
    return {r["value"] for r in rows}


def admin_state(db: Database) -> dict[str, list[str]]:
    return db.snapshot(
        {
            "users": "id",
            "password_credentials": "user_id",
            "user_roles": "user_id, role_id",
            "audit_events": "id",
        }
    )


HOUR = timedelta(hours=1)
# (name, expires_at relative to now, revoked/used relative to now or None, kept?)
CODES = [
    ("code-expired-2h", -2 * HOUR, None, False),
    ("code-expired-30min", -HOUR / 2, None, True),
    ("code-live", HOUR, None, True),
]
REFRESH_TOKENS = [
    ("rt-expired-2h", -2 * HOUR, None, False),
    ("rt-expired-2h-revoked", -2 * HOUR, -3 * HOUR, False),
    ("rt-expired-30min", -HOUR / 2, None, True),
    ("rt-expired-30min-revoked", -HOUR / 2, -HOUR, True),
    ("rt-live-revoked", HOUR, timedelta(0), True),
    ("rt-live", HOUR, None, True),
]
RESET_TOKENS = [
    ("reset-expired-2h", -2 * HOUR, None, False),
    ("reset-expired-2h-used", -2 * HOUR, -3 * HOUR, False),
    ("reset-expired-30min", -HOUR / 2, None, True),
    ("reset-live-used", HOUR, timedelta(0), True),
]


def insert_cleanup_rows(db: Database, tag: str) -> tuple[Any, Any]:
    client_pk = db.fetchval(
        "INSERT INTO clients (client_id, name, type, grant_types) "
        "VALUES ($1, 'Cleanup test', 'confidential', ARRAY['authorization_code']) RETURNING id",
        f"cleanup-{tag}",
    )
    user_id = db.fetchval(
        "INSERT INTO users (email) VALUES ($1) RETURNING id", f"cleanup-{tag}@example.test"
    )
    for name, expires, _, _ in CODES:
        db.execute(
            "INSERT INTO authorization_codes (code_digest, grant_id, client_pk, user_id, "
            "redirect_uri, scope, auth_time, expires_at) "
            "VALUES ($1, gen_random_uuid(), $2, $3, 'https://app.example.test/cb', 'openid', "
            "now(), now() + $4::interval)",
            f"{tag}:{name}".encode(),
            client_pk,
            user_id,
            expires,
        )
    for name, expires, revoked, _ in REFRESH_TOKENS:
        db.execute(
            "INSERT INTO refresh_tokens (token_digest, family_id, client_pk, user_id, scope, "
            "issued_at, expires_at, revoked_at) "
            "VALUES ($1, gen_random_uuid(), $2, $3, 'openid offline_access', "
            "now() - interval '30 days', now() + $4::interval, now() + $5::interval)",
            f"{tag}:{name}".encode(),
            client_pk,
            user_id,
            expires,
            revoked,
        )
    for name, expires, used, _ in RESET_TOKENS:
        db.execute(
            "INSERT INTO password_reset_tokens (token_digest, user_id, expires_at, used_at) "
            "VALUES ($1, $2, now() + $3::interval, now() + $4::interval)",
            f"{tag}:{name}".encode(),
            user_id,
            expires,
            used,
        )
    return client_pk, user_id


def remaining(db: Database, tag: str) -> dict[str, set[str]]:
    prefix = f"{tag}:".encode()
    found: dict[str, set[str]] = {}
    for table, column in (
        ("authorization_codes", "code_digest"),
        ("refresh_tokens", "token_digest"),
        ("password_reset_tokens", "token_digest"),
    ):
        rows = db.fetch(f"SELECT {column} FROM {table}")  # noqa: S608 (constants)
        found[table] = {
            bytes(r[0])[len(prefix) :].decode() for r in rows if bytes(r[0]).startswith(prefix)
        }
    return found


def _kept(rows: list[tuple[str, timedelta, timedelta | None, bool]]) -> set[str]:
    return {name for name, _, _, kept in rows if kept}


def key_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*.pem"))
