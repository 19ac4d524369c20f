"""``idp migrate``: down to base and back, and a no-op at the current revision."""

from __future__ import annotations

from pathlib import Path

import pytest

from idp_common.protocol.constants import (
    OIDC_SCOPES,
)
from idp_common.storage.db.migrate import head_revision
from tests.integration.test_operator_tool.support import (
    Cli,
    base_env,
    fresh_database,
    run_idp,
)

pytestmark = pytest.mark.integration


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


def test_migrate_to_the_current_revision_is_a_no_op(cli: Cli, seeded: str) -> None:
    head = head_revision()
    assert f"database at {head}" in cli("migrate", "--to", head).stdout
    assert "database at head" in cli("migrate").stdout
