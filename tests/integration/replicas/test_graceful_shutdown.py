"""Graceful shutdown of ``idp serve`` (docs/operations.md "Rolling restart").

SIGTERM to a replica's master: for ``SVC_SHUTDOWN_DRAIN_SECONDS`` ready answers 503
``{"status": "draining"}`` while every request is still served, each answer closing its
connection; then new connections are refused, requests in flight finish (within
``SVC_SHUTDOWN_TIMEOUT_SECONDS``), and the process exits 0. A real token service (two
Granian workers in the first test: both drain), real sockets; the slow request is a client
that sends its body slowly.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.harness.process import Process
from tests.harness.stack import Stack
from tests.integration.replicas import rawhttp

# under load and timed: runs alone, after the parallel part (scripts/test.sh)
pytestmark = [pytest.mark.integration, pytest.mark.alone]

BODY = b"grant_type=client_credentials&client_id=nobody&client_secret=wrong"


def start_token_service(stack: Stack, drain: float, timeout: float, workers: int = 1) -> Process:
    overrides = {
        "SVC_SHUTDOWN_DRAIN_SECONDS": str(drain),
        "SVC_SHUTDOWN_TIMEOUT_SECONDS": str(timeout),
    }
    process = stack.start_service("token", overrides, workers=workers)
    stack.wait_until_up(process)
    return process


def wait_for_exit(process: Process, seconds: float) -> int | None:
    try:
        return process.popen.wait(seconds)
    except subprocess.TimeoutExpired:
        return None


def refused(port: int) -> bool:
    try:
        rawhttp.connect(port).close()
    except ConnectionRefusedError:
        return True
    return False


def test_sigterm_drains_then_stops_accepting_and_finishes_what_is_in_flight(
    extra_processes: Stack,
) -> None:
    drain = 5.0
    process = start_token_service(extra_processes, drain, timeout=20, workers=2)
    port = process.port
    kept = rawhttp.connect(port)  # a keep-alive connection from before, as a proxy pools
    rawhttp.send_get(kept, "/health/live")
    assert not rawhttp.read_answer(kept).closes
    slow = rawhttp.connect(port)  # in flight across the whole shutdown: half a body
    rawhttp.start_post(slow, "/oauth2/token", BODY, sent=len(BODY) // 2)

    process.popen.send_signal(signal.SIGTERM)
    signalled = time.monotonic()

    ready = rawhttp.get(port, "/health/ready")
    while ready.status == 200 and time.monotonic() - signalled < 2:
        time.sleep(0.05)
        ready = rawhttp.get(port, "/health/ready")
    assert ready.status == 503
    assert json.loads(ready.body) == {"status": "draining"}
    assert ready.closes

    # Each worker checks the flag every 0.2 s: a second later both have seen it. Still
    # serving, on new connections (they reach both workers) and on the kept one.
    time.sleep(1)
    served, probes = [], []
    while time.monotonic() - signalled < drain - 1:
        served.append(rawhttp.get(port, "/.well-known/openid-configuration"))
        probes.append(rawhttp.get(port, "/health/ready").status)
    assert len(served) >= 10
    assert {a.status for a in served} == {200}
    assert all(a.closes for a in served)
    assert set(probes) == {503}
    rawhttp.send_get(kept, "/health/live")
    on_kept = rawhttp.read_answer(kept)
    assert on_kept.status == 200
    assert on_kept.closes
    assert rawhttp.closed_by_peer(kept)
    assert process.popen.poll() is None

    # After the drain: no new connection, but the request in flight is still answered.
    while not refused(port) and time.monotonic() - signalled < drain + 10:
        time.sleep(0.05)
    assert refused(port)
    assert time.monotonic() - signalled >= drain - 0.5
    assert process.popen.poll() is None, "exited with a request in flight"
    slow.sendall(BODY[len(BODY) // 2 :])
    answer = rawhttp.read_answer(slow)
    assert answer.status == 401
    assert json.loads(answer.body)["error"] == "invalid_client"
    assert answer.closes
    slow.close()

    assert wait_for_exit(process, 20) == 0, process.log_tail()
    assert f"Draining for {drain:g} s" in process.log_tail(200)


def test_a_request_that_never_finishes_is_cut_at_the_shutdown_timeout(
    extra_processes: Stack,
) -> None:
    drain, timeout = 1.0, 3.0
    process = start_token_service(extra_processes, drain, timeout)
    stuck = rawhttp.connect(process.port)
    rawhttp.start_post(stuck, "/oauth2/token", BODY, sent=5)  # the rest never comes
    time.sleep(0.5)  # accepted and read by a worker

    process.popen.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    status = wait_for_exit(process, drain + timeout + 20)
    waited = time.monotonic() - signalled

    assert status == 0, process.log_tail()
    assert waited >= drain + timeout - 0.5  # it waited for the request, up to the bound
    assert rawhttp.closed_by_peer(stuck)
    stuck.close()


def test_a_second_signal_during_the_drain_stops_at_once(extra_processes: Stack) -> None:
    process = start_token_service(extra_processes, drain=60, timeout=20)
    process.popen.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    while rawhttp.get(process.port, "/health/ready").status == 200:
        assert time.monotonic() - signalled < 5, "never started draining"
        time.sleep(0.05)

    process.popen.send_signal(signal.SIGTERM)

    assert wait_for_exit(process, 30) == 0, process.log_tail()
    assert time.monotonic() - signalled < 30  # not the 60 s drain
    assert "Stop signal during the drain: stopping now" in process.log_tail(200)


def test_sigint_stops_without_draining(extra_processes: Stack) -> None:
    """Ctrl-C in a terminal reaches the workers too: no drain to wait for."""
    process = start_token_service(extra_processes, drain=60, timeout=20)
    process.popen.send_signal(signal.SIGINT)
    signalled = time.monotonic()
    assert wait_for_exit(process, 30) == 0, process.log_tail()
    assert time.monotonic() - signalled < 30  # not the 60 s drain
    assert "Draining" not in process.log_tail(200)


def wait_for(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_the_proxy_holds_no_idle_connection_to_a_replica_when_its_drain_ends(
    extra_processes: Stack,
) -> None:
    """What makes a rolling restart safe for POSTs: when Granian stops and closes idle
    connections, nginx must hold none, or a request it sends on one at that moment is
    lost (nginx never re-sends a POST it began to send). nginx closes a pooled connection
    after the upstream keepalive_timeout (here 1 s) and never pools one whose response
    said ``Connection: close`` (every response of a draining replica)."""
    stack = extra_processes
    drain = 5.0
    process = start_token_service(stack, drain, timeout=20)
    ports = {**stack.service_ports, "token": process.port}
    view = Stack(stack.run_id, stack.work_dir, stack.db_name, stack.env, 0, ports)
    keepalive = ("--upstream-keepalive-timeout", "1", "--drain-seconds", str(drain))
    proxy = view.start_proxy(name="drainproxy", extra_args=keepalive)
    stack.processes.append(proxy)
    stack.wait_until_up(proxy, "/console/")
    discovery = proxy.url + "/.well-known/openid-configuration"

    with ThreadPoolExecutor(6) as pool:  # several at once: nginx opens and pools several
        assert set(pool.map(lambda _: httpx.get(discovery).status_code, range(12))) == {200}
    pooled = rawhttp.established_to(process.port)
    assert pooled >= 1

    process.popen.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    assert wait_for(lambda: rawhttp.get(process.port, "/health/ready").status == 503, 2)
    # Idle pooled connections are closed by nginx within its keepalive timeout...
    assert wait_for(lambda: rawhttp.established_to(process.port) == 0, drain - 2)
    # ... and one used during the drain is not pooled again.
    assert httpx.get(discovery).status_code == 200
    assert wait_for(lambda: rawhttp.established_to(process.port) == 0, 0.5)
    assert time.monotonic() - signalled < drain, "the drain ended before the checks"
    assert process.popen.poll() is None
    assert wait_for_exit(process, 30) == 0, process.log_tail()
