"""Fixtures of the operator tool's tests: a fresh database, the command line bound to it,
and that database migrated and seeded."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from tests.integration.test_operator_tool.support import (
    IDP_SCOPES,
    Cli,
    Database,
    base_env,
    fresh_database,
    numbers,
    run_idp,
)


@pytest.fixture(scope="package")
def db() -> Iterator[Database]:
    with fresh_database() as database:
        yield database


@pytest.fixture(scope="package")
def cli(db: Database, tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """``idp`` bound to the module's database; keyword arguments add ``SVC_*`` variables."""
    key_dir = tmp_path_factory.mktemp("keys")

    def call(*args: str, check: bool = True, **settings: str) -> subprocess.CompletedProcess[str]:
        return run_idp(base_env(db, key_dir, **settings), *args, check=check)

    return call


@pytest.fixture(scope="package")
def seeded(db: Database, cli: Cli) -> str:
    """``idp migrate`` then a first ``idp seed`` on the empty database; its output."""
    migrated = cli("migrate")
    assert "head" in migrated.stdout
    first = cli("seed")
    # The first run added every idp:* scope, 13 grants and 3 + 19 console scopes.
    assert len(IDP_SCOPES) in numbers(first.stdout), first.stdout
    assert any(n > 0 for n in numbers(first.stdout))
    return first.stdout
