"""The operator tool ``idp``, run as a real command line against a real Postgres.

Spec part 3 (last row: cleanup), part 5 (deployment settings), part 8 ("Cleanup margin"),
part 9 (schema upgrades, re-seeding); DESIGN.md §2 "The provider's own API and its
permissions" and "Wire contracts" (the seeded console client, the operator tool printing
the administrator's credentials).

The module gets its own database (``idp_t_<hex>``), migrated and seeded once; tests that
need an empty schema make another. Every command is ``python -m idp_common.operations.cli ...`` in a
subprocess with only ``SVC_*`` variables chosen here.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest

from idp_common.crypto.passwords import verify_password
from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    IDP_SCOPE_DESCRIPTIONS,
    OIDC_SCOPES,
    SELF_SERVICE_SCOPES,
)
from idp_common.storage.db.migrate import head_revision
from tests.harness import infra

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
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


# --- Plumbing ------------------------------------------------------------------------------


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


# --- Fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def db() -> Iterator[Database]:
    with fresh_database() as database:
        yield database


@pytest.fixture(scope="module")
def cli(db: Database, tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """``idp`` bound to the module's database; keyword arguments add ``SVC_*`` variables."""
    key_dir = tmp_path_factory.mktemp("keys")

    def call(*args: str, check: bool = True, **settings: str) -> subprocess.CompletedProcess[str]:
        return run_idp(base_env(db, key_dir, **settings), *args, check=check)

    return call


@pytest.fixture(scope="module")
def seeded(db: Database, cli: Cli) -> str:
    """``idp migrate`` then a first ``idp seed`` on the empty database; its output."""
    migrated = cli("migrate")
    assert "head" in migrated.stdout
    first = cli("seed")
    # The first run added every idp:* scope, 13 grants and 3 + 19 console scopes.
    assert len(IDP_SCOPES) in numbers(first.stdout), first.stdout
    assert any(n > 0 for n in numbers(first.stdout))
    return first.stdout


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


# --- migrate and seed ----------------------------------------------------------------------


def test_second_seed_changes_nothing(db: Database, cli: Cli, seeded: str) -> None:
    cli("seed")  # whatever ran before, the catalogue is now complete
    before = db.snapshot(CATALOGUE_TABLES)
    assert all(before.values()), before  # every table holds rows

    again = cli("seed")

    assert db.snapshot(CATALOGUE_TABLES) == before
    counts = numbers(again.stdout)
    assert counts, again.stdout
    assert all(n == 0 for n in counts), f"second seed added something: {again.stdout}"


def test_seeded_idp_api(db: Database, seeded: str) -> None:
    rows = db.fetch("SELECT name, audience FROM apis")
    assert [(r["name"], r["audience"]) for r in rows] == [("idp", f"{ISSUER}/api")]


def test_seeded_idp_scopes(db: Database, seeded: str) -> None:
    api_id = db.fetchval("SELECT id FROM apis WHERE name = 'idp'")
    rows = db.fetch("SELECT value, description, api_id FROM scopes WHERE value LIKE 'idp:%'")
    seeded_scopes = {r["value"]: r for r in rows}
    assert set(seeded_scopes) == set(IDP_SCOPES)
    for value in IDP_SCOPES:
        row = seeded_scopes[value]
        assert row["api_id"] == api_id, value
        assert row["description"].strip(), value
        assert row["description"] == IDP_SCOPE_DESCRIPTIONS[value]


def test_standard_oidc_scopes_have_no_api(db: Database, seeded: str) -> None:
    rows = db.fetch("SELECT value, api_id, description FROM scopes WHERE api_id IS NULL")
    assert {r["value"] for r in rows} == set(OIDC_SCOPES)
    assert {"openid", "profile", "email", "offline_access"} == set(OIDC_SCOPES)
    assert all(r["description"].strip() for r in rows)


def test_administrator_role_holds_exactly_the_admin_scopes(db: Database, seeded: str) -> None:
    assert db.fetchval("SELECT count(*) FROM roles WHERE name = 'administrator'") == 1
    assert scopes_of_role(db, "administrator") == set(ADMIN_SCOPES)
    assert not scopes_of_role(db, "administrator") & set(SELF_SERVICE_SCOPES)


def test_console_client(db: Database, seeded: str) -> None:
    rows = db.fetch(
        "SELECT type, redirect_uris, post_logout_redirect_uris, grant_types, "
        "backchannel_logout_uri FROM clients WHERE client_id = 'console'"
    )
    assert len(rows) == 1
    console = rows[0]
    assert console["type"] == "public"
    assert console["redirect_uris"] == [f"{ISSUER}/console/callback"]
    assert console["post_logout_redirect_uris"] == [f"{ISSUER}/console/"]
    assert "authorization_code" in console["grant_types"]
    assert "client_credentials" not in console["grant_types"]  # a public client
    assert (
        db.fetchval(
            "SELECT count(*) FROM client_secrets cs JOIN clients c ON c.id = cs.client_pk "
            "WHERE c.client_id = 'console'"
        )
        == 0
    )
    every_idp_scope = {
        r["value"] for r in db.fetch("SELECT value FROM scopes WHERE value LIKE 'idp:%'")
    }
    assert every_idp_scope >= set(IDP_SCOPES)
    assert scopes_of_client(db, "console") == {"openid", "profile", "email"} | every_idp_scope


def test_new_scopes_go_to_administrator_on_the_next_seed(
    db: Database, cli: Cli, seeded: str
) -> None:
    """Spec §9 rule 5: a release that adds permissions re-seeds; administrator gets them."""
    missing_scope = ADMIN_SCOPES[-1]  # as if the older catalogue did not have it
    missing_grant = ADMIN_SCOPES[0]  # the scope exists, the role does not hold it
    assert missing_scope != missing_grant
    db.execute("DELETE FROM scopes WHERE value = $1", missing_scope)
    db.execute(
        "DELETE FROM role_scopes "
        "WHERE role_id = (SELECT id FROM roles WHERE name = 'administrator') "
        "AND scope_id = (SELECT id FROM scopes WHERE value = $1)",
        missing_grant,
    )
    held = scopes_of_role(db, "administrator")
    assert missing_scope not in held
    assert missing_grant not in held
    assert missing_scope not in scopes_of_client(db, "console")

    result = cli("seed")

    # One scope, two grants, one console scope added back.
    assert sorted(numbers(result.stdout)) == [1, 1, 2], result.stdout
    assert scopes_of_role(db, "administrator") == set(ADMIN_SCOPES)
    assert (
        db.fetchval(
            "SELECT s.description FROM scopes s JOIN apis a ON a.id = s.api_id "
            "WHERE s.value = $1 AND a.name = 'idp'",
            missing_scope,
        )
        == IDP_SCOPE_DESCRIPTIONS[missing_scope]
    )
    assert missing_scope in scopes_of_client(db, "console")


def test_migrate_to_base_and_back(cli: Cli, tmp_path: Path) -> None:
    del cli  # a database of its own: emptying the module's would break the other tests
    with fresh_database() as database:
        env = base_env(database, tmp_path / "keys")
        public_tables = (
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'public' AND table_name <> 'alembic_version'"
        )
        run_idp(env, "migrate")
        tables = {r[0] for r in database.fetch(public_tables)}
        assert {"users", "scopes", "clients", "audit_events"} <= tables
        run_idp(env, "seed")

        down = run_idp(env, "migrate", "--to", "base")
        assert "base" in down.stdout
        assert database.fetch(public_tables) == []

        run_idp(env, "migrate")
        tables_again = {r[0] for r in database.fetch(public_tables)}
        assert tables_again == tables
        assert database.fetchval("SELECT version_num FROM alembic_version") == head_revision()
        standard = {r[0] for r in database.fetch("SELECT value FROM scopes WHERE api_id IS NULL")}
        assert standard == set(OIDC_SCOPES)


# --- create-admin --------------------------------------------------------------------------


def admin_state(db: Database) -> dict[str, list[str]]:
    return db.snapshot(
        {
            "users": "id",
            "password_credentials": "user_id",
            "user_roles": "user_id, role_id",
            "audit_events": "id",
        }
    )


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


# --- cleanup -------------------------------------------------------------------------------

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


def _insert_cleanup_rows(db: Database, tag: str) -> tuple[Any, Any]:
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


def _remaining(db: Database, tag: str) -> dict[str, set[str]]:
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


def test_cleanup_deletes_only_rows_an_hour_past_expiry(db: Database, cli: Cli, seeded: str) -> None:
    tag = secrets.token_hex(4)
    client_pk, user_id = _insert_cleanup_rows(db, tag)
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
    assert _remaining(db, tag) == {
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
    assert _remaining(db, tag)["refresh_tokens"] == _kept(REFRESH_TOKENS)
    assert len(db.rows_as_text("audit_events", "id")) == len(audit_after) + 1


# --- keys ----------------------------------------------------------------------------------


def key_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*.pem"))


def test_keys_generate_and_list(db: Database, tmp_path: Path) -> None:
    key_dir = tmp_path / "keys"  # does not exist yet: the tool creates it
    env = base_env(db, key_dir)

    run_idp(env, "keys", "generate", "--if-missing", "--bits", "2048")
    first = key_files(key_dir)
    assert len(first) == 1
    assert stat.S_IMODE((key_dir / first[0]).stat().st_mode) == 0o600

    again = run_idp(env, "keys", "generate", "--if-missing", "--bits", "2048")
    assert key_files(key_dir) == first
    assert "none added" in again.stdout

    run_idp(env, "keys", "generate", "--bits", "2048")
    both = key_files(key_dir)
    assert len(both) == 2
    newest = (set(both) - set(first)).pop()
    assert newest > first[0]
    assert both == [first[0], newest]

    listing = run_idp(env, "keys", "list").stdout.strip().splitlines()
    assert len(listing) == 2, listing
    by_file = {name: next(line for line in listing if name in line) for name in both}
    assert "signs" in by_file[newest]
    assert "signs" not in by_file[first[0]]
    assert all("kid=" in line for line in listing)


# --- refused settings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(("serve", "token", "--port", str(infra.free_port())), id="serve-token"),
        pytest.param(("check-settings",), id="check-settings"),
    ],
)
def test_bad_settings_refused_with_every_problem(
    db: Database, tmp_path: Path, command: tuple[str, ...]
) -> None:
    env = base_env(db, tmp_path / "keys", SVC_API_PREFIX="/x", SVC_FORWARDED_ALLOW_IPS="*")
    started = time.monotonic()
    result = run_idp(env, *command, check=False, timeout=BAD_SETTINGS_TIMEOUT)
    assert time.monotonic() - started < BAD_SETTINGS_TIMEOUT
    assert result.returncode != 0
    assert "SVC_API_PREFIX" in result.stderr
    assert "SVC_FORWARDED_ALLOW_IPS" in result.stderr
    assert "'*'" in result.stderr


def test_check_settings_accepts_good_settings(db: Database, tmp_path: Path) -> None:
    result = run_idp(base_env(db, tmp_path / "keys"), "check-settings")
    assert "valid" in result.stdout
    assert ISSUER in result.stdout


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


def test_migrate_to_the_current_revision_is_a_no_op(cli: Cli, seeded: str) -> None:
    head = head_revision()
    assert f"database at {head}" in cli("migrate", "--to", head).stdout
    assert "database at head" in cli("migrate").stdout
