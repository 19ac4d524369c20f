"""Backup and restore of the database as docs/operations.md "Backup and restore" tells it:
``pg_dump --format=custom`` of the live database, ``pg_restore`` into an empty one,
``idp migrate`` (a no-op at the same release), then a service started on the restored
database serves what the backup holds, and nothing written after it."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.harness import infra
from tests.harness.stack import Stack
from tests.integration.token_fixtures import AppClient, create_api, create_client

pytestmark = pytest.mark.integration


def _libpq_url(database: str) -> str:
    return infra.database_url(database).replace("postgresql+asyncpg://", "postgresql://")


def _pg(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True, timeout=120)


@pytest.fixture
def restored(stack: Stack) -> Iterator[str]:
    name = f"{stack.db_name}_restored"
    infra.run(infra.create_database(name))
    try:
        yield name
    finally:
        infra.run(infra.drop_database(name))


def _client_credentials(url: str, client: AppClient, scope: str) -> httpx.Response:
    assert client.secret is not None
    return httpx.post(
        url + "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": scope},
        auth=(client.client_id, client.secret),
    )


def test_a_restored_backup_serves_what_it_holds(
    stack: Stack, restored: str, tmp_path: Path
) -> None:
    create_api(stack, ["backup:read"])
    before = create_client(stack, scopes=["backup:read"], grant_types=["client_credentials"])
    dump = tmp_path / "idp.dump"
    _pg("pg_dump", "--format=custom", f"--file={dump}", _libpq_url(stack.db_name))
    after = create_client(stack, scopes=["backup:read"], grant_types=["client_credentials"])

    _pg("pg_restore", "--no-owner", f"--dbname={_libpq_url(restored)}", str(dump))
    migrated = stack.idp("migrate", env={"SVC_DATABASE_URL": infra.database_url(restored)})
    assert migrated.returncode == 0, migrated.stderr
    assert "database at head" in migrated.stdout + migrated.stderr

    with stack.extra_service("token", {"SVC_DATABASE_URL": infra.database_url(restored)}) as url:
        health = httpx.get(url + "/health").json()
        kept = _client_credentials(url, before, "backup:read")
        lost = _client_credentials(url, after, "backup:read")

    assert health["database"] == "ok"
    assert kept.status_code == 200, kept.text
    assert kept.json()["token_type"] == "Bearer"
    assert lost.status_code == 401
    assert lost.json()["error"] == "invalid_client"
    # The live database has both; the restore touched nothing of it.
    assert _client_credentials(stack.service_url("token"), after, "backup:read").status_code == 200
