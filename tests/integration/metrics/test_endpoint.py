"""``GET /metrics`` on every service's own port, the switch that turns it off, the
dispatcher's outbox backlog (also with its database gone) and the sign-in outcomes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from idp_common.crypto.keys import load_key_set
from tests.harness import infra
from tests.harness.stack import SERVICES, Stack
from tests.integration.metrics.support import Sample, scrape, settle, total
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    new_challenge,
    post,
    signin_client,
)

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_exposes_its_metrics(stack: Stack, service: str) -> None:
    url = stack.service_url(service)
    assert httpx.get(url + "/health/live").status_code == 200

    samples = settle(url, lambda s: total(s, "idp_http_requests_total", route="/health/live") > 0)

    assert total(samples, "idp_http_requests_total", route="/health/live", status="200") > 0
    assert {s.labels.get("service") for s in samples if "service" in s.labels} == {service}
    # the stack's keys: two RS256, one of each other algorithm
    assert total(samples, "idp_signing_keys_published") == len(load_key_set(stack.key_dir).keys)
    assert 0 <= total(samples, "idp_signing_key_age_seconds") < 3600
    pools = {s.labels["pool"] for s in samples if s.name == "idp_db_pool_max_connections"}
    assert pools == {"orm", "hot"}
    assert all(s.name.startswith("idp_") for s in samples)


def test_the_dispatcher_reports_the_outbox_backlog(stack: Stack) -> None:
    samples = scrape(stack.service_url("logout-dispatcher"))
    assert total(samples, "idp_outbox_readable") == 1
    assert total(samples, "idp_outbox_pending_events") >= 0
    assert total(samples, "idp_outbox_lag_seconds") >= 0


def test_an_unreachable_database_does_not_fail_the_scrape(extra_processes: Stack) -> None:
    dead_db = f"postgresql+asyncpg://postgres@127.0.0.1:{infra.closed_port()}/idp"
    process = extra_processes.start_service(
        "logout-dispatcher", {"SVC_DATABASE_URL": dead_db, "SVC_DEPENDENCY_TIMEOUT": "0.5"}
    )
    extra_processes.wait_until_up(process, "/health/live")
    samples = scrape(process.url)
    assert total(samples, "idp_outbox_readable") == 0
    assert not [s for s in samples if s.name.startswith("idp_outbox_pending")]
    published = total(samples, "idp_signing_keys_published")
    assert published == len(load_key_set(extra_processes.key_dir).keys)  # the rest is there


def test_the_pool_sizes_follow_the_settings(extra_processes: Stack) -> None:
    """SVC_DB_POOL_SIZE / SVC_DB_HOT_POOL_SIZE bound each worker's Postgres connections."""
    process = extra_processes.start_service(
        "admin", {"SVC_DB_POOL_SIZE": "3", "SVC_DB_HOT_POOL_SIZE": "5"}
    )
    extra_processes.wait_until_up(process)

    samples = settle(
        process.url,
        lambda s: any(x.name == "idp_db_pool_max_connections" for x in s),
    )

    most = {s.labels["pool"]: s.value for s in samples if s.name == "idp_db_pool_max_connections"}
    assert most == {"orm": 3, "hot": 5}


def test_metrics_switched_off(extra_processes: Stack, tmp_path: Path) -> None:
    process = extra_processes.start_service(
        "token", {"SVC_METRICS_ENABLED": "false", "SVC_METRICS_DIR": str(tmp_path)}, workers=2
    )
    extra_processes.wait_until_up(process)
    answer = httpx.get(process.url + "/metrics")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    assert list(tmp_path.iterdir()) == []  # no multiprocess directory, nothing written


def signin_outcomes(samples: list[Sample]) -> dict[tuple[str, str], float]:
    return {
        (s.labels["method"], s.labels["reason"]): s.value
        for s in samples
        if s.name == "idp_signin_attempts_total"
    }


def test_sign_in_outcomes_are_counted_by_method_and_reason(extra_processes: Stack) -> None:
    """A sign-in API of its own (the shared one counts every other test's sign-ins)."""
    process = extra_processes.start_service("authui-api")
    extra_processes.wait_until_up(process)
    person = create_person(extra_processes)
    rp = create_client(extra_processes, skip_consent=True)
    with signin_client(process.url) as client:
        for password in ("wrong-1", "wrong-2", person.password):
            body = {
                "challenge": new_challenge(extra_processes, rp),
                "email": person.email,
                "password": password,
            }
            post(client, "/login", body)
        body["email"] = "nobody-" + person.email
        body["challenge"] = new_challenge(extra_processes, rp)
        assert post(client, "/login", body).status_code == 401

    expected = {
        ("password", "bad_password"): 2,
        ("password", "unknown_account"): 1,
        ("password", "success"): 1,
    }
    samples = settle(process.url, lambda s: signin_outcomes(s) == expected)
    assert signin_outcomes(samples) == expected
    route = "/api/v1/auth/login"
    assert total(samples, "idp_http_requests_total", route=route, status="401") == 3
    assert total(samples, "idp_http_requests_total", route=route, status="200") == 1


def test_serve_stops_at_once_without_a_usable_metrics_directory(
    stack: Stack, tmp_path: Path
) -> None:
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    result = stack.idp(
        "serve",
        "token",
        "--port",
        str(infra.free_port()),
        env={"SVC_METRICS_DIR": str(not_a_directory)},
    )
    assert result.returncode == 1
    assert "SVC_METRICS_DIR" in result.stderr
    assert "Traceback" not in result.stderr
