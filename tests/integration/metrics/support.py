"""Reading what a service exposes at ``/metrics`` (parsed with prometheus-client's own
parser) and what each of its workers wrote in the replica's multiprocess directory."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families


@dataclass(frozen=True)
class Sample:
    name: str
    labels: Mapping[str, str]
    value: float


def scrape(base_url: str) -> list[Sample]:
    answer = httpx.get(base_url + "/metrics", timeout=15)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return [
        Sample(sample.name, dict(sample.labels), sample.value)
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    ]


def total(samples: list[Sample], name: str, **labels: str) -> float:
    """The sum of the samples named ``name`` whose labels include ``labels``."""
    return sum(
        s.value
        for s in samples
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    )


def settle(
    base_url: str, ready: Callable[[list[Sample]], bool], timeout: float = 15.0
) -> list[Sample]:
    """Scrape until ``ready`` holds (workers write their request tallies every second), or
    the last scrape once ``timeout`` has passed, for the test's assertions to judge."""
    deadline = time.monotonic() + timeout
    while True:
        samples = scrape(base_url)
        if ready(samples) or time.monotonic() > deadline:
            return samples
        time.sleep(0.3)


def replica_dir(base: Path, master_pid: int) -> Path:
    (found,) = base.glob(f"idp-metrics-*-{master_pid}-*")
    return found


def per_worker(directory: Path, name: str, **labels: str) -> dict[int, float]:
    """Each worker's own value of a counter, read from its file (``counter_<pid>.db``)."""
    values: dict[int, float] = {}
    for file in sorted(directory.glob("counter_*.db")):
        pid = int(file.stem.split("_")[1])
        metrics = MultiProcessCollector.merge([str(file)], accumulate=False)
        values[pid] = sum(
            s.value
            for metric in metrics
            for s in metric.samples
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
        )
    return values
