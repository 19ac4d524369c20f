"""A service worker that dies (SIGKILL, the OOM killer) is replaced; the service stays up.

Found by ``make chaos`` (fault 5): ``idp serve`` ran Granian without
``respawn_failed_workers``, so when one of two workers was killed the master shut the
whole service down, and the token endpoint answered nothing until an operator restarted it.
"""

from __future__ import annotations

import os
import signal
import time

import httpx
import pytest

from tests.harness.process import children
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration


def wait_for_workers(pid: int, count: int, timeout: float) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        workers = children(pid)
        if len(workers) >= count:
            return workers
        time.sleep(0.1)
    return children(pid)


def test_a_killed_worker_is_replaced_and_the_service_keeps_answering(
    extra_processes: Stack,
) -> None:
    process = extra_processes.start_service("token", workers=2)
    extra_processes.wait_until_up(process)
    workers = wait_for_workers(process.popen.pid, 2, 30)
    assert len(workers) == 2, workers
    victim = min(workers)

    os.kill(victim, signal.SIGKILL)

    deadline = time.monotonic() + 15
    answered = None
    while time.monotonic() < deadline:
        time.sleep(0.5)
        try:
            answered = httpx.get(process.url + "/health/ready", timeout=2).status_code
        except httpx.TransportError:
            answered = None
        if answered == 200 and len(children(process.popen.pid) - {victim}) == 2:
            break
    assert process.popen.poll() is None, f"the service exited:\n{process.log_tail()}"
    assert answered == 200
    replacements = children(process.popen.pid) - workers
    assert len(replacements) == 1, (workers, children(process.popen.pid))
