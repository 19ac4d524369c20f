"""Health routes of every service, healthy and with a dependency gone (contract §4).

A dependency is made unreachable by pointing a fresh service process at a port where
nothing listens, the same failure a stopped server shows.
"""

from __future__ import annotations

import asyncpg
import httpx
import pytest

from tests.harness import infra
from tests.harness.stack import SERVICES, Stack

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_is_healthy_on_its_own_port(stack: Stack, service: str) -> None:
    base = stack.service_url(service)
    health = httpx.get(base + "/health")
    assert health.status_code == 200
    body = health.json()
    assert body["status"] == "ok"
    assert body["database"] == "ok"
    assert body["redis"] == "ok"
    assert httpx.get(base + "/health/ready").status_code == 200
    live = httpx.get(base + "/health/live")
    assert live.status_code == 200
    assert live.json() == {"status": "ok"}


def test_dispatcher_reports_nats(stack: Stack) -> None:
    assert httpx.get(stack.service_url("logout-dispatcher") + "/health").json()["nats"] == "ok"


def start(stack: Stack, service: str, overrides: dict[str, str]) -> str:
    process = stack.start_service(service, overrides)
    stack.wait_until_up(process, "/health/live")
    return process.url


@pytest.mark.parametrize(
    ("setting", "value", "failing"),
    [
        ("SVC_REDIS_URL", "redis://127.0.0.1:{port}/0", "redis"),
        ("SVC_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:{port}/idp", "database"),
    ],
)
def test_unreachable_dependency(
    extra_processes: Stack, setting: str, value: str, failing: str
) -> None:
    url = start(extra_processes, "admin", {setting: value.format(port=infra.closed_port())})
    health = httpx.get(url + "/health", timeout=10)
    assert health.status_code == 200
    body = health.json()
    assert body["status"] == "degraded"
    assert body[failing] == "unreachable"
    other = {"redis": "database", "database": "redis"}[failing]
    assert body[other] == "ok"
    assert httpx.get(url + "/health/ready", timeout=10).status_code == 503
    assert httpx.get(url + "/health/live", timeout=10).status_code == 200


def test_database_not_at_migration_head_is_not_ready(extra_processes: Stack) -> None:
    name = f"idp_t_{infra.run_id()}"
    db_url = infra.run(infra.create_database(name))
    try:
        url = start(extra_processes, "token", {"SVC_DATABASE_URL": db_url})
        body = httpx.get(url + "/health", timeout=10).json()
        assert body == {"status": "degraded", "database": "outdated", "redis": "ok"}
        assert httpx.get(url + "/health/ready", timeout=10).status_code == 503
    finally:
        infra.run(infra.drop_database(name))  # FORCE: closes the service's connections


async def _stamp(db_url: str, revision: str) -> None:
    conn = await asyncpg.connect(db_url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await conn.execute("UPDATE alembic_version SET version_num = $1", revision)
    finally:
        await conn.close()


def test_a_schema_ahead_of_this_release_keeps_it_ready(extra_processes: Stack) -> None:
    """A rollout migrates first (contract §9.5), while the previous release still serves:
    its replicas must stay ready on the newer schema, or every request fails until the new
    replicas are up (migrations are additive within a release: docs/operations.md)."""
    name = f"idp_t_{infra.run_id()}"
    db_url = infra.run(infra.create_database(name))
    try:
        migrated = extra_processes.idp("migrate", env={"SVC_DATABASE_URL": db_url})
        assert migrated.returncode == 0, migrated.stderr
        infra.run(_stamp(db_url, "9999_a_later_release"))
        url = start(extra_processes, "token", {"SVC_DATABASE_URL": db_url})
        body = httpx.get(url + "/health", timeout=10).json()
        assert body == {"status": "ok", "database": "ahead", "redis": "ok"}
        assert httpx.get(url + "/health/ready", timeout=10).status_code == 200
    finally:
        infra.run(infra.drop_database(name))


def test_dispatcher_without_nats_is_degraded(extra_processes: Stack) -> None:
    overrides = {"SVC_NATS_URL": f"nats://127.0.0.1:{infra.closed_port()}"}
    url = start(extra_processes, "logout-dispatcher", overrides)
    body = httpx.get(url + "/health", timeout=10).json()
    assert body["status"] == "degraded"
    assert body["nats"] == "unreachable"
    assert body["database"] == body["redis"] == "ok"
    assert httpx.get(url + "/health/ready", timeout=10).status_code == 503
