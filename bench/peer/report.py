"""The side-by-side table (medians of the runs, CPU per operation by class of process, the
ratios) and its record in ``bench/results/``: the table as text and a JSON copy with every
run, the commit, the versions and the machine."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.measure import ROOT
from bench.peer.systems import ROWS, Measurement, System
from tests.harness.stack import NGINX

RESULTS = ROOT / "bench/results"
CLASSES = ("server", "postgres", "redis", "proxy", "load generator")
SHORT = {"server": "srv", "postgres": "pg", "redis": "redis", "proxy": "proxy"}


@dataclass
class Table:
    opts: argparse.Namespace
    systems: list[System]
    measurements: list[Measurement]
    openssl: tuple[float | None, float | None]
    per_worker: dict[str, list[int]]  # requests each peer worker answered, setup included


@dataclass
class Cell:
    """One row of one system over its runs."""

    rate: float  # median of the runs
    rates: list[float]
    p50: float | None
    p99: float | None
    errors: dict[str, int]
    samples: dict[str, str]
    cpu_ms: dict[str, float | None]  # CPU ms per successful operation, by class
    other_cores: float  # the most cores processes outside the run took during one run
    notes: list[str]


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def cell(measurements: list[Measurement]) -> Cell:
    results = [m.result for m in measurements]
    ok = sum(r.ok for r in results)
    errors: dict[str, int] = {}
    samples: dict[str, str] = {}
    for r in results:
        for kind, count in r.errors.items():
            errors[kind] = errors.get(kind, 0) + count
            samples.setdefault(kind, r.samples.get(kind, ""))
    cpu: dict[str, float | None] = {}
    for name in CLASSES:
        seconds = sum(m.cpu_seconds.get(name, 0.0) for m in measurements)
        cpu[name] = seconds * 1000 / ok if ok else None
    return Cell(
        rate=statistics.median(r.rate for r in results),
        rates=[r.rate for r in results],
        p50=_median([r.p50 for r in results]),
        p99=_median([r.p99 for r in results]),
        errors=errors,
        samples=samples,
        cpu_ms=cpu,
        other_cores=max(r.other_cpu for r in results),
        notes=[note for r in results for note in r.notes],
    )


def cells(table: Table) -> dict[tuple[str, str], Cell]:
    out = {}
    for row, _, _ in ROWS:
        for system in table.systems:
            found = [m for m in table.measurements if m.row == row and m.system == system.key]
            if found:
                out[row, system.key] = cell(found)
    return out


def _num(value: float | None, fmt: str = ",.0f") -> str:
    return "-" if value is None else format(value, fmt)


def ratio(
    grid: dict[tuple[str, str], Cell], row: str, other: str, of: str = "ours"
) -> float | None:
    ours, peer = grid.get((row, of)), grid.get((row, other))
    return ours.rate / peer.rate if ours and peer and peer.rate else None


def render(table: Table) -> str:
    grid = cells(table)
    opts = table.opts
    before, after = table.openssl
    runs = f"median of {opts.runs} run{'s' if opts.runs > 1 else ''}"
    head = (
        f"{'row':<42} {'system':<14} {'ok/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6}  "
        + " ".join(f"{SHORT.get(c, 'gen'):>6}" for c in CLASSES)
        + f"  {'oth cpu':>7}  {'ours÷pg':>7} {'ours÷mem':>8}"
    )
    out = [
        "",
        f"Side by side with node-oidc-provider: c={opts.concurrency}, warm-up {opts.warmup:g} s, "
        f"{opts.duration:g} s per run, {runs}, systems alternating",
        f"ours: token service, {opts.workers} Granian workers; peer: node-oidc-provider, node "
        f"cluster of {opts.workers} workers, mem and pg adapters; 'proxy' = the same nginx",
        "CPU columns: ms of CPU per successful operation (srv = the server's processes, pg = "
        "its database's backends,",
        "redis = the machine's redis-server, proxy = nginx, gen = wrk or the Python generator)",
        "",
        head,
        "-" * len(head),
    ]
    for row, label, unit in ROWS:
        first = True
        for system in table.systems:
            c = grid.get((row, system.key))
            if c is None:
                continue
            ratios = ""
            if system.key in ("ours", "floor"):
                ratios = (
                    f"  {_num(ratio(grid, row, 'peer_pg', system.key), '.2f'):>7} "
                    f"{_num(ratio(grid, row, 'peer_mem', system.key), '.2f'):>8}"
                )
            name = f"{label} ({unit})" if first else ""
            first = False
            out.append(
                f"{name:<42} {system.label:<14} {c.rate:>8,.0f} {_num(c.p50, '.1f'):>7} "
                f"{_num(c.p99, '.1f'):>7} {sum(c.errors.values()):>6,}  "
                + " ".join(f"{_num(c.cpu_ms[k], '.3f'):>6}" for k in CLASSES)
                + f"  {c.other_cores:>7.2f}{ratios}"
            )
    out.append("")
    out.append(
        f"OpenSSL RSA-2048 signatures/s in one process (per core): before {_num(before)}, "
        f"after {_num(after)}"
    )
    for name, counts in table.per_worker.items():
        if counts:
            shares = " / ".join(f"{n:,}" for n in counts)
            out.append(f"{name}: requests per worker (setup included, hash $connection): {shares}")
    out += summary(table, grid)
    problems = [
        f"  {label}, {system.label}: {count:,} x {kind}  {c.samples.get(kind, '')[:160]!r}"
        for row, label, _ in ROWS
        for system in table.systems
        if (c := grid.get((row, system.key)))
        for kind, count in c.errors.items()
    ]
    notes = [
        f"  {label}, {system.label}: {note}"
        for row, label, _ in ROWS
        for system in table.systems
        if (c := grid.get((row, system.key)))
        for note in c.notes
    ]
    if problems or notes:
        out += ["", "errors (never counted as successes) and notes:", *problems, *notes]
    busy = [c for c in grid.values() if c.other_cores > 0.25]
    if busy:
        out.append(
            f"WARNING: processes outside this run took > 0.25 core during {len(busy)} of "
            f"{len(grid)} cells (oth cpu): figures are lower and noisier than on a quiet machine"
        )
    return "\n".join(out) + "\n"


def summary(table: Table, grid: dict[tuple[str, str], Cell]) -> list[str]:
    """The issue's layout: one line per row."""
    out = [
        "",
        f"| row (median of {table.opts.runs}) | peer mem | peer pg | ours | ours direct "
        "| ours ÷ pg | ours ÷ mem |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row, label, unit in ROWS:
        rates = {
            key: _num(grid[row, key].rate) if (row, key) in grid else "-"
            for key in ("peer_mem", "peer_pg", "ours", "ours_direct")
        }
        if all(v == "-" for v in rates.values()):
            continue
        out.append(
            f"| {label} ({unit}) | {rates['peer_mem']} | {rates['peer_pg']} | {rates['ours']} "
            f"| {rates['ours_direct']} | {_num(ratio(grid, row, 'peer_pg'), '.2f')} "
            f"| {_num(ratio(grid, row, 'peer_mem'), '.2f')} |"
        )
    return out + floor_summary(table, grid)


def floor_summary(table: Table, grid: dict[tuple[str, str], Cell]) -> list[str]:
    """The Python floor (bench/peer/floor.py: the same signatures and nothing else, under
    Granian, through the proxy) against the peers and against ours, for the rows it runs."""
    rows = [(row, label, unit) for row, label, unit in ROWS if (row, "floor") in grid]
    if not rows:
        return []
    out = [
        "",
        "The Python floor: the same signatures and nothing else, under Granian (RSGI), "
        "through the proxy",
        "",
        f"| row (median of {table.opts.runs}) | py floor | floor ÷ pg | floor ÷ mem "
        "| ours ÷ floor |",
        "|---|---:|---:|---:|---:|",
    ]
    for row, label, unit in rows:
        out.append(
            f"| {label} ({unit}) | {_num(grid[row, 'floor'].rate)} "
            f"| {_num(ratio(grid, row, 'peer_pg', 'floor'), '.2f')} "
            f"| {_num(ratio(grid, row, 'peer_mem', 'floor'), '.2f')} "
            f"| {_num(ratio(grid, row, 'floor'), '.2f')} |"
        )
    return out


def _command(*args: str) -> str:
    try:
        return subprocess.run(args, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def machine() -> dict[str, Any]:
    model = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return {
        "cpu_model": model,
        "cores": len(os.sched_getaffinity(0)),
        "kernel": platform.release(),
        "load_average": Path("/proc/loadavg").read_text().split()[:3],
    }


def write(table: Table, text: str, folder: Path, peer_versions: dict[str, str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    commit = _command("git", "-C", str(ROOT), "rev-parse", "HEAD")
    dirty = bool(_command("git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"))
    record = {
        "when": stamp,
        "commit": commit + ("+dirty" if dirty else ""),
        "versions": {
            **peer_versions,
            "python": platform.python_version(),
            "nginx": _nginx_version(),
            "openssl": _command("openssl", "version"),
        },
        "machine": machine(),
        "options": vars(table.opts),
        "openssl_rsa2048_sign_per_s": {"before": table.openssl[0], "after": table.openssl[1]},
        "systems": {s.key: s.label for s in table.systems},
        "peer_requests_per_worker": table.per_worker,
        "cells": {f"{row}/{key}": asdict(c) for (row, key), c in cells(table).items()},
        "runs": [
            {
                "row": m.row,
                "system": m.system,
                "run": m.run,
                "rate": m.result.rate,
                "ok": m.result.ok,
                "p50_ms": m.result.p50,
                "p99_ms": m.result.p99,
                "errors": dict(m.result.errors),
                "other_cores": m.result.other_cpu,
                "generator_cores": m.result.gen_cpu,
                "cpu_seconds": m.cpu_seconds,
            }
            for m in table.measurements
        ],
    }
    text_path = folder / f"peer-{stamp}.txt"
    json_path = folder / f"peer-{stamp}.json"
    text_path.write_text(text)
    json_path.write_text(json.dumps(record, indent=2, sort_keys=False) + "\n")
    return [text_path, json_path]


def _nginx_version() -> str:
    out = subprocess.run([NGINX, "-v"], capture_output=True, text=True, check=False)
    return (out.stderr or out.stdout).strip()
