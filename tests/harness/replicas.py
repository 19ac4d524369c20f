"""Several processes of one service behind the proxy (issue 22): their ports, and one
replica stopped, killed or started again as an orchestrator would.

A replica is one ``idp serve`` process (a Granian master and its workers, in a process
group of their own: ``Stack.spawn`` starts a new session). ``stack.ports_of(name)`` lists
every replica's port, the first one being ``stack.service_ports[name]``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from idp_common.operations.replicas import parse_replicas
from tests.harness import infra
from tests.harness.process import Process

if TYPE_CHECKING:
    from tests.harness.stack import Stack

#: render.py's option for each service behind the proxy.
PROXY_UPSTREAMS = {"token": "token", "admin": "admin", "entity": "entity", "authui": "authui-api"}


def assign_ports(stack: Stack, replicas: Mapping[str, int] | None) -> None:
    """A port for every replica (``replicas``: counts by service, checked as
    ``SVC_REPLICAS`` is; a service not named runs once)."""
    counts = parse_replicas(",".join(f"{k}={v}" for k, v in (replicas or {}).items()))
    for name, count in counts.items():
        first = stack.service_ports[name]
        stack.replica_ports[name] = [first, *(infra.free_port() for _ in range(count - 1))]


def upstream_args(stack: Stack, ports: Mapping[str, list[int]]) -> list[str]:
    """``--token 127.0.0.1:P1 --token 127.0.0.1:P2 ...``: every replica behind the proxy,
    or for a service that ``ports`` names, the ports it lists."""
    return [
        arg
        for option, service in PROXY_UPSTREAMS.items()
        for port in ports.get(service) or stack.ports_of(service)
        for arg in (f"--{option}", f"127.0.0.1:{port}")
    ]


def replica(stack: Stack, name: str, index: int) -> Process:
    """The running process of replica ``index`` of ``name``."""
    port = stack.ports_of(name)[index]
    return next(p for p in stack.processes if p.name == name and p.port == port)


def terminate(process: Process, timeout: float) -> int | None:
    """SIGTERM to the replica's master (what Kubernetes and ``make down`` send); its exit
    status, or None when it had not exited after ``timeout`` seconds."""
    process.popen.send_signal(signal.SIGTERM)
    try:
        return process.popen.wait(timeout)
    except subprocess.TimeoutExpired:
        return None


def terminate_all(stack: Stack, timeout: float = 60) -> None:
    """SIGTERM to every process of the stack at once, then wait for each (their drains
    overlap instead of adding up)."""
    running = [p for p in stack.processes if p.popen.poll() is None]
    for process in running:
        process.popen.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for process in running:
        try:
            process.popen.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.popen.kill()
            process.popen.wait(5)


def freeze(process: Process) -> None:
    """SIGSTOP to the whole replica: it accepts connections (the kernel does) and answers
    nothing, so whatever the proxy sends it stays in flight until it is killed."""
    os.killpg(process.popen.pid, signal.SIGSTOP)


def kill(stack: Stack, process: Process) -> None:
    """SIGKILL to the whole replica at once (its master and workers), then forget it."""
    os.killpg(process.popen.pid, signal.SIGKILL)
    process.popen.wait(10)
    stack.processes.remove(process)


def start_again(stack: Stack, name: str, index: int) -> tuple[Process, float]:
    """Start replica ``index`` of ``name`` on its port; return it once it is ready, with
    the seconds that took."""
    started = time.monotonic()
    process = stack.start_service(name, port=stack.ports_of(name)[index])
    stack.wait_until_up(process)
    return process, time.monotonic() - started
