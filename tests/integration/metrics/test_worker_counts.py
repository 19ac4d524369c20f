"""``/metrics`` of a token service with two Granian workers, after known traffic (issue 22,
acceptance 4): the counters equal the requests made, summed over both workers; and a worker
killed with SIGKILL leaves its counts in the sum and no live gauge behind."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from idp_common.observability.multiprocess import live_gauge_pids
from tests.harness.process import Process, children
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.metrics.support import (
    Sample,
    per_worker,
    replica_dir,
    scrape,
    settle,
    total,
)

pytestmark = pytest.mark.integration

LIMIT = 5  # SVC_TOKEN_PER_IP of the service under test
REFUSED = 7  # requests past the limit from one address
UNKNOWN = 9  # requests to paths no route matches
CODES = 3  # code exchanges by a public client
BATCH = 40  # client_credentials requests per batch, 16 at a time on new connections
SCOPE = "metrics:read"
TOKEN = "/oauth2/token"
REQUESTS = "idp_http_requests_total"


@pytest.fixture(scope="module")
def machine(stack: Stack) -> tf.AppClient:
    """A confidential client with the client_credentials grant and an API scope."""
    tf.create_api(stack, [SCOPE])
    return tf.create_client(stack, scopes=[SCOPE], grant_types=["client_credentials"])


def start_token(stack: Stack, metrics_dir: Path) -> Process:
    """A token service with two workers, once both have started: each worker's tick has
    written its pool gauges (a SIGTERM while a worker is still starting can leave Granian
    waiting for it for ever: see the report of issue 22)."""
    process = stack.start_service(
        "token",
        {"SVC_TOKEN_PER_IP": str(LIMIT), "SVC_METRICS_DIR": str(metrics_dir)},
        workers=2,
    )
    stack.wait_until_up(process)
    master = process.popen.pid
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        workers = children(master)
        started = live_gauge_pids(replica_dir(metrics_dir, master))
        if len(workers) == 2 and workers <= started:
            return process
        time.sleep(0.2)
    raise AssertionError(f"two workers did not start:\n{process.log_tail()}")


def client_credentials(url: str, machine: tf.AppClient, count: int) -> list[int]:
    """``count`` requests, each on a new connection from an address of its own."""

    def one(_: int) -> int:
        with httpx.Client(timeout=30) as http:
            return http.post(
                url + TOKEN,
                data={"grant_type": "client_credentials", "scope": SCOPE},
                headers={**machine.basic(), "X-Forwarded-For": tf.fresh_address()},
            ).status_code

    with ThreadPoolExecutor(16) as pool:
        return list(pool.map(one, range(count)))


def token_answers(samples: list[Sample], status: str) -> float:
    return total(samples, REQUESTS, route=TOKEN, method="POST", status=status)


def test_counters_equal_the_requests_made_by_both_workers(
    extra_processes: Stack, tmp_path: Path, machine: tf.AppClient
) -> None:
    stack = extra_processes
    process = start_token(stack, tmp_path)
    url, master = process.url, process.popen.pid
    workers = children(master)

    # client_credentials until each worker has answered some (they accept in turn from one
    # socket, so a few batches of concurrent new connections reach both)
    issued = 0
    served: dict[int, float] = {}
    for _ in range(5):
        statuses = client_credentials(url, machine, BATCH)
        assert statuses == [200] * BATCH
        issued += BATCH
        settle(url, lambda s, n=issued: token_answers(s, "200") >= n)
        served = per_worker(replica_dir(tmp_path, master), REQUESTS, route=TOKEN, status="200")
        if len([pid for pid, n in served.items() if n > 0]) == 2:
            break
    assert {pid for pid, n in served.items() if n > 0} == workers, (served, workers)

    # LIMIT + REFUSED from one address: LIMIT answered, REFUSED refused by the limit
    address = tf.fresh_address()
    with httpx.Client(base_url=url, timeout=30, headers={"X-Forwarded-For": address}) as http:
        limited = [
            http.post(
                TOKEN,
                data={"grant_type": "client_credentials", "scope": SCOPE},
                headers=machine.basic(),
            ).status_code
            for _ in range(LIMIT + REFUSED)
        ]
    assert limited == [200] * LIMIT + [429] * REFUSED

    # a public client's code exchanges (PKCE)
    spa = tf.create_client(stack, public=True)
    person = tf.create_person(stack)
    with httpx.Client(base_url=url, timeout=30) as http:
        for _ in range(CODES):
            verifier, challenge = tf.pkce_pair()
            code = tf.create_code(stack, spa, person, challenge=challenge)
            http.headers["X-Forwarded-For"] = tf.fresh_address()
            answer = tf.exchange(http, spa, code, verifier=verifier, auth="post")
            assert answer.status_code == 200, answer.text

    # paths no route matches
    unknown = [httpx.get(f"{url}/no-such-path-{n}", timeout=30).status_code for n in range(UNKNOWN)]
    assert unknown == [404] * UNKNOWN

    answered = issued + LIMIT + CODES
    samples = settle(
        url,
        lambda s: (
            token_answers(s, "200") >= answered
            and token_answers(s, "429") >= REFUSED
            and total(s, REQUESTS, route="unmatched") >= UNKNOWN
        ),
    )
    assert token_answers(samples, "200") == answered
    assert token_answers(samples, "429") == REFUSED
    assert total(samples, REQUESTS, route="unmatched", method="GET", status="404") == UNKNOWN
    assert total(samples, REQUESTS, route="unmatched") == UNKNOWN
    assert (
        total(samples, "idp_http_request_duration_seconds_count", route=TOKEN, method="POST")
        == answered + REFUSED
    )
    assert (
        total(samples, "idp_http_request_duration_seconds_bucket", route=TOKEN, le="+Inf")
        == answered + REFUSED
    )
    issued_by = {
        (s.labels["grant_type"], s.labels["client_type"]): s.value
        for s in samples
        if s.name == "idp_tokens_issued_total"
    }
    assert issued_by == {
        ("client_credentials", "confidential"): issued + LIMIT,
        ("authorization_code", "public"): CODES,
    }
    assert total(samples, "idp_rate_limit_refusals_total", limit="token") == REFUSED
    assert {s.labels["service"] for s in samples if "service" in s.labels} == {"token"}

    # the sum is both workers' own counts
    served = per_worker(replica_dir(tmp_path, master), REQUESTS, route=TOKEN, status="200")
    assert sum(served.values()) == answered
    assert all(served[pid] > 0 for pid in workers)
    pool_pids = {s.labels["pid"] for s in samples if s.name == "idp_db_pool_max_connections"}
    assert pool_pids == {str(pid) for pid in workers}

    # nothing a client chooses became a label value
    values = {v for s in samples for v in s.labels.values()}
    assert not any(
        machine.client_id in v or spa.client_id in v or address in v or "no-such-path" in v
        for v in values
    ), values


def test_a_killed_worker_keeps_its_counts_and_leaves_no_live_gauge(
    extra_processes: Stack, tmp_path: Path, machine: tf.AppClient
) -> None:
    stack = extra_processes
    process = start_token(stack, tmp_path)
    url, master = process.url, process.popen.pid
    workers = children(master)
    assert client_credentials(url, machine, BATCH) == [200] * BATCH
    before = settle(url, lambda s: token_answers(s, "200") >= BATCH)
    assert token_answers(before, "200") == BATCH
    served = per_worker(replica_dir(tmp_path, master), REQUESTS, route=TOKEN, status="200")
    victim = max(workers, key=lambda pid: served.get(pid, 0))  # the one with counts to keep

    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = children(master)
        if victim not in now and len(now) == 2:
            break
        time.sleep(0.2)
    replaced = children(master)
    assert victim not in replaced and len(replaced) == 2, (victim, replaced, process.log_tail())

    def live_pids(samples: list[Sample]) -> set[str]:
        return {s.labels["pid"] for s in samples if s.name == "idp_db_pool_max_connections"}

    after = settle(url, lambda s: live_pids(s) == {str(pid) for pid in replaced})
    assert live_pids(after) == {str(pid) for pid in replaced}
    assert token_answers(after, "200") == BATCH  # the dead worker's counts are still summed
    leftovers = list(replica_dir(tmp_path, master).glob(f"gauge_live*_{victim}.db"))
    assert leftovers == []

    assert client_credentials(url, machine, 10) == [200] * 10
    later = settle(url, lambda s: token_answers(s, "200") >= BATCH + 10)
    assert token_answers(later, "200") == BATCH + 10


def test_the_directory_goes_with_the_replica(extra_processes: Stack, tmp_path: Path) -> None:
    process = start_token(extra_processes, tmp_path)
    directory = replica_dir(tmp_path, process.popen.pid)
    assert scrape(process.url)  # answers
    process.popen.send_signal(signal.SIGTERM)  # as an orchestrator stops it, given time
    assert process.popen.wait(60) == 0, process.log_tail()
    assert not directory.exists()
