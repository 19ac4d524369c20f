"""The wrk rounds of ``bench/metrics_cost.py``: a fresh pair of token services per round
(metrics on and off), each row measured on both, and the CPU each spent per request."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.cpu import TICK, Meter
from bench.measure import WrkRequest, say, wrk_row
from tests.harness.process import Process, children
from tests.harness.stack import Stack


@dataclass
class Row:
    key: str
    request: WrkRequest
    on: list[float] = field(default_factory=list)
    off: list[float] = field(default_factory=list)
    on_cpu: list[float] = field(default_factory=list)  # µs of service CPU per answer
    off_cpu: list[float] = field(default_factory=list)
    app_batch: int = 100  # requests per batch in process
    app: dict[str, Any] = field(default_factory=dict)  # bench.metrics_inprocess's answer
    errors: int = 0
    other_cpu: list[float] = field(default_factory=list)


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and its children (a Granian master and its workers)."""
    total = 0.0
    for one in (pid, *children(pid)):
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK
    return total


class ServiceMeter(Meter):
    """:class:`bench.cpu.Meter`, and the CPU seconds of one service across the block."""

    def __init__(self, root_pids: list[int], db_name: str, service_pid: int) -> None:
        super().__init__(root_pids, db_name)
        self.service_pid = service_pid
        self.service_cpu = 0.0

    def __enter__(self) -> ServiceMeter:
        self._service_start = tree_cpu_seconds(self.service_pid)
        super().__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self.service_cpu = tree_cpu_seconds(self.service_pid) - self._service_start


@dataclass
class Checks:
    """What the last round's services said: the "on" one's count of the token requests it
    answered and how many it answered, and the "off" one's answer to /metrics."""

    counted: float = 0.0
    answered: int = 0
    off_status: int = 0


def start_pair(stack: Stack, number: int, workers: int) -> dict[str, Process]:
    """A fresh "on" and "off" token service, started in an order that alternates, with one
    hash seed for both (a process's own layout moves its speed by several per cent)."""
    services: dict[str, Process] = {}
    order = ["on", "off"] if number % 2 else ["off", "on"]
    for which in order:
        overrides = {"SVC_METRICS_ENABLED": str(which == "on").lower()}
        overrides["PYTHONHASHSEED"] = str(number)
        services[which] = stack.start_service("token", overrides, workers=workers)
    for process in services.values():
        stack.wait_until_up(process)
    return services


def stop_pair(stack: Stack, services: dict[str, Process]) -> None:
    for process in services.values():
        process.stop()
        stack.processes.remove(process)


def measure(stack: Stack, rows: list[Row], opts: argparse.Namespace) -> Checks:
    wrk_opts = argparse.Namespace(
        warmup=opts.warmup, duration=opts.duration, wrk_threads=opts.wrk_threads
    )
    checks = Checks()
    for number in range(1, opts.rounds + 1):
        services = start_pair(stack, number, opts.workers)
        pids = [p.popen.pid for p in services.values()]
        order = ["on", "off"] if number % 2 else ["off", "on"]
        try:
            for row in rows:
                for which in order:
                    meter = ServiceMeter(pids, stack.db_name, services[which].popen.pid)
                    result = wrk_row(
                        row.key,
                        row.key,
                        services[which].url,
                        row.request,
                        opts.concurrency,
                        wrk_opts,
                        meter,
                    )
                    getattr(row, which).append(result.rate)
                    answers = max(1, result.ok + result.error_count)
                    getattr(row, f"{which}_cpu").append(meter.service_cpu / answers * 1e6)
                    row.errors += result.error_count
                    row.other_cpu.append(result.other_cpu)
                    if which == "on" and row.key == "client_credentials":
                        checks.answered = result.ok + result.error_count
                say(
                    f"  round {number} {row.key}: on {row.on[-1]:,.0f}/s {row.on_cpu[-1]:.0f} µs,"
                    f" off {row.off[-1]:,.0f}/s {row.off_cpu[-1]:.0f} µs"
                )
            checks.counted = counted_requests(services["on"].url, "/oauth2/token")
            off = httpx.get(services["off"].url + "/metrics", timeout=10)
            checks.off_status = off.status_code
        finally:
            stop_pair(stack, services)
    return checks


def counted_requests(url: str, route: str) -> float:
    """What the service's /metrics says it answered on ``route``."""
    text = httpx.get(url + "/metrics", timeout=10).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "idp_http_requests"
        for sample in family.samples
        if sample.name == "idp_http_requests_total" and sample.labels.get("route") == route
    )
