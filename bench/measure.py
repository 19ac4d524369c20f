"""How the benchmark measures: wrk for fixed requests, load generator processes
(``bench/loadgen.py``) for chained ones, and the probe of single-request latency; each gives
one row."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.cpu import Meter

ROOT = Path(__file__).resolve().parents[1]
LUA = ROOT / "bench/lua/request.lua"
LOGS = ROOT / "var/bench/logs"
EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))\b")
RAISED_LIMIT = "10000000"
#: Interval of the event-loop probe: a loop held up by a hash (~100 ms) shows at any of them.
PROBE_MS = 50.0
FORM = "application/x-www-form-urlencoded"


def say(message: str) -> None:
    print(f"\033[1m==> {message}\033[0m", file=sys.stderr, flush=True)


# --- results ----------------------------------------------------------------------------
@dataclass
class Result:
    key: str
    label: str
    conc: int
    unit: str
    rate: float = 0.0
    p50: float | None = None
    p99: float | None = None
    ok: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)
    gen_cpu: float = 0.0  # cores the load generator used, averaged over the row
    other_cpu: float = 0.0  # cores other processes on the machine took during the row
    notes: list[str] = field(default_factory=list)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


@dataclass
class ProbeResult:
    label: str
    count: int
    p50: float | None
    p99: float | None
    worst: float | None
    errors: dict[str, int]


def percentile(values: list[float], pct: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


# --- wrk --------------------------------------------------------------------------------
@dataclass
class WrkRequest:
    path: str
    method: str = "GET"
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    expect: str = ""


def _wrk(base: str, req: WrkRequest, conc: int, seconds: float, threads: int) -> dict[str, Any]:
    env = {
        **os.environ,
        "BENCH_METHOD": req.method,
        "BENCH_BODY": req.body,
        "BENCH_HEADERS": "\n".join(f"{k}: {v}" for k, v in req.headers.items()),
        "BENCH_EXPECT": req.expect,
    }
    command = [
        "wrk",
        f"-t{min(threads, conc)}",
        f"-c{conc}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
        base + req.path,
    ]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    for line in out.stdout.splitlines():
        if line.startswith("BENCH_JSON "):
            parsed: dict[str, Any] = json.loads(line.removeprefix("BENCH_JSON "))
            return parsed
    raise RuntimeError(f"wrk gave no result (exit {out.returncode}):\n{out.stdout}\n{out.stderr}")


def wrk_row(
    key: str,
    label: str,
    base: str,
    req: WrkRequest,
    conc: int,
    opts: argparse.Namespace,
    meter: Meter,
) -> Result:
    result = Result(key, label, conc, "req/s")
    if opts.warmup > 0:
        _wrk(base, req, conc, opts.warmup, opts.wrk_threads)
    with meter:
        data = _wrk(base, req, conc, opts.duration, opts.wrk_threads)
    result.gen_cpu, result.other_cpu = meter.generator, meter.others
    seconds = data["duration_us"] / 1e6
    for status, count in data["statuses"].items():
        if status.isdigit() and 200 <= int(status) < 300:
            result.ok += count
        else:
            kind = f"HTTP {status}"
            result.errors[kind] += count
            result.samples[kind] = data["samples"].get(status, "")
    for kind in ("connect", "read", "write", "timeout"):
        if data[kind]:
            result.errors[f"socket {kind}"] += data[kind]
    result.rate = result.ok / seconds if seconds else 0.0
    if result.ok:  # wrk's percentiles cover every answer, errors included
        result.p50, result.p99 = data["p50_us"] / 1000, data["p99_us"] / 1000
    return result


# --- the Python generator ---------------------------------------------------------------
def run_generators(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    procs = []
    for job in jobs:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bench.loadgen"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(job))
        proc.stdin.close()
    results = []
    for proc in procs:
        assert proc.stdout is not None
        out = proc.stdout.read()
        if proc.wait() != 0 or not out:
            raise RuntimeError(f"load generator exited with {proc.returncode}")
        results.append(json.loads(out))
    return results


def split(items: list[Any], parts: int) -> list[list[Any]]:
    return [items[i::parts] for i in range(parts)]


@dataclass
class Window:
    warmup: float
    duration: float


def gen_row(
    key: str,
    label: str,
    unit: str,
    base_job: dict[str, Any],
    conc: int,
    opts: argparse.Namespace,
    meter: Meter,
    pool: list[Any] | None = None,
    probes: tuple[dict[str, Any], ...] = (),
    window: Window | None = None,
) -> tuple[Result, list[dict[str, Any]]]:
    """One measurement by ``opts.procs`` generator processes, and probes in its window."""
    win = window or Window(opts.warmup, opts.duration)
    procs = max(1, min(opts.procs, conc))
    start_at = time.time() + 1.0
    jobs = []
    pools = split(pool, procs) if pool is not None else [None] * procs
    for i in range(procs):
        job = {
            **base_job,
            "connections": conc // procs + (1 if i < conc % procs else 0),
            "start_at": start_at,
            "warmup": win.warmup,
            "duration": win.duration,
        }
        if pools[i] is not None:
            job["pool"] = pools[i]
        jobs.append(job)
    for probe in probes:  # the measured window only
        jobs.append(
            {**probe, "start_at": start_at + win.warmup, "warmup": 0.0, "duration": win.duration}
        )
    with meter:
        outputs = run_generators(jobs)
    probe_outs = outputs[procs:]
    outputs = outputs[:procs]
    result = Result(key, label, conc, unit, gen_cpu=meter.generator, other_cpu=meter.others)
    latencies: list[float] = []
    for out in outputs:
        result.ok += out["ok"]
        if out["elapsed"] > 0:
            result.rate += out["ok"] / out["elapsed"]
        latencies += out["latencies_ms"]
        result.errors.update(out["errors"])
        for kind, sample in out["samples"].items():
            result.samples.setdefault(kind, sample)
    if any(out["exhausted"] for out in outputs):
        shortest = min(out["elapsed"] for out in outputs)
        result.notes.append(
            f"pool of {len(pool or [])} single-use items ran out: measured {shortest:.1f} s"
        )
    if window is not None:
        result.notes.append(f"window stretched: warm-up {win.warmup:.1f} s, {win.duration:.1f} s")
    result.p50, result.p99 = percentile(latencies, 50), percentile(latencies, 99)
    return result, probe_outs


def probe_result(label: str, out: dict[str, Any]) -> ProbeResult:
    values = out["latencies_ms"]
    return ProbeResult(
        label,
        len(values),
        percentile(values, 50),
        percentile(values, 99),
        max(values) if values else None,
        out["errors"],
    )
