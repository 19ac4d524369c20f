"""The memory benchmark's record and report: the samples of every process, the phases,
the tables printed, and the files written to ``bench/results/``."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.measure import ROOT
from bench.memory_sample import PER, Reading, ServiceProcess, slope_per_100k, verdict


@dataclass
class Series:
    """One process's readings, one per point."""

    label: str
    service: str
    role: str
    pid: int
    points: list[str] = field(default_factory=list)
    grants: list[int] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    gone_at: str | None = None

    def values(self, kind: str) -> list[int]:
        return [getattr(r, kind) for r in self.readings]

    def second_half_slope(self, kind: str, total: int) -> float | None:
        points = [
            (g, float(getattr(r, kind)))
            for g, r in zip(self.grants, self.readings, strict=True)
            if g >= total / 2
        ]
        return slope_per_100k(points)


@dataclass
class Phase:
    label: str
    grants_total: int
    grants: int
    seconds: float
    ops: dict[str, int]
    errors: dict[str, int]
    samples: dict[str, str]
    other_cores: float


@dataclass
class Run:
    opts: dict[str, Any]
    started: float
    ended: float = 0.0
    phases: list[Phase] = field(default_factory=list)
    series: list[Series] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    respawned: list[str] = field(default_factory=list)
    logouts: int = 0
    backchannel: int = 0
    load_before: str = ""
    load_after: str = ""

    def add_phase(self, label: str, total: int, result: dict[str, Any], others: float) -> None:
        self.phases.append(
            Phase(
                label,
                total,
                result["grants"],
                result["seconds"],
                result["ops"],
                result["errors"],
                result["samples"],
                others,
            )
        )

    def sample(
        self,
        point: str,
        grants: int,
        processes: Sequence[ServiceProcess],
        read: Callable[[int], Reading | None],
    ) -> None:
        if not self.series:
            self.series = [Series(p.label, p.service, p.role, p.pid) for p in processes]
        for series in self.series:
            reading = read(series.pid)
            if reading is None:
                series.gone_at = series.gone_at or point
                continue
            series.points.append(point)
            series.grants.append(grants)
            series.readings.append(reading)

    def note_replaced(
        self, first: Sequence[ServiceProcess], now: Sequence[ServiceProcess], point: str
    ) -> None:
        """Workers Granian replaced (a worker that died is respawned): named once each."""
        known = {p.pid for p in first}
        for process in now:
            entry = f"{process.service} pid {process.pid} (new by {point})"
            if process.pid not in known and not any(
                e.startswith(f"{process.service} pid {process.pid} ") for e in self.respawned
            ):
                self.respawned.append(entry)

    @property
    def measured(self) -> list[Phase]:
        return [p for p in self.phases if p.label != "warm-up"]

    def totals(self) -> tuple[Counter[str], Counter[str]]:
        ops: Counter[str] = Counter()
        errors: Counter[str] = Counter()
        for phase in self.phases:
            ops.update(phase.ops)
            errors.update(phase.errors)
        return ops, errors


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def machine() -> dict[str, Any]:
    model = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gb": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
    }


def commit() -> dict[str, Any]:
    def git(*args: str) -> str:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return out.stdout.strip()

    changed = [
        line for line in git("status", "--porcelain").splitlines() if "bench/results/" not in line
    ]
    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(changed)}


# --- the text --------------------------------------------------------------------------
def mb(kb: float | None) -> str:
    return "-" if kb is None else f"{kb / 1024:,.1f}"


def growth(values: Sequence[int]) -> tuple[str, str]:
    if len(values) < 2 or not values[0]:
        return "-", "-"
    delta = values[-1] - values[0]
    return f"{delta / 1024:+,.1f}", f"{delta / values[0] * 100:+.1f}%"


def slope_text(slope: float | None) -> str:
    return "-" if slope is None else f"{slope:+,.0f}"


def rss_table(run: Run, threshold: float) -> list[str]:
    total = run.opts["grants"]
    points = run.series[0].points if run.series else []
    head = f"{'process':<30}" + "".join(f"{p:>8}" for p in points)
    head += f"{'growth MB':>10}{'%':>8}{'KB/100k':>9}  verdict"
    lines = [head, "-" * len(head)]
    for s in run.series:
        values = s.values("rss_kb")
        cells = "".join(f"{mb(v):>8}" for v in values)
        cells += " " * 8 * (len(points) - len(values))
        grown, pct = growth(values)
        slope = s.second_half_slope("rss_kb", total)
        gone = f" (gone at {s.gone_at})" if s.gone_at else ""
        lines.append(
            f"{s.label:<30}{cells}{grown:>10}{pct:>8}{slope_text(slope):>9}  "
            f"{verdict(slope, threshold)}{gone}"
        )
    return lines


def private_table(run: Run, threshold: float) -> list[str]:
    total = run.opts["grants"]
    head = (
        f"{'process':<30}{'USS warm':>9}{'USS end':>9}{'growth':>8}{'KB/100k':>9}  "
        f"{'verdict':<8}{'PSS warm':>9}{'PSS end':>9}{'KB/100k':>9}"
    )
    lines = [head, "-" * len(head)]
    for s in run.series:
        uss, pss = s.values("uss_kb"), s.values("pss_kb")
        if not uss:
            continue
        uss_slope = s.second_half_slope("uss_kb", total)
        lines.append(
            f"{s.label:<30}{mb(uss[0]):>9}{mb(uss[-1]):>9}{growth(uss)[0]:>8}"
            f"{slope_text(uss_slope):>9}  {verdict(uss_slope, threshold):<8}"
            f"{mb(pss[0]):>9}{mb(pss[-1]):>9}"
            f"{slope_text(s.second_half_slope('pss_kb', total)):>9}"
        )
    return lines


def render(run: Run, threshold: float) -> str:
    opts, info = run.opts, machine()
    ops, errors = run.totals()
    measured = run.measured
    seconds = sum(p.seconds for p in measured)
    grants = sum(p.grants for p in measured)
    others = max((p.other_cores for p in measured), default=0.0)
    growing = [
        s.label
        for s in run.series
        if verdict(s.second_half_slope("rss_kb", opts["grants"]), threshold) == "grows"
    ]
    lines = [
        "",
        f"Memory over {grants:,} grants (after a warm-up of {opts['warmup_grants']:,}); "
        f"{opts['connections']} agents at the service ports; token and authui-api with "
        f"{opts['workers']} Granian workers",
        f"{info['cores']} cores ({info['cpu']}), {info['memory_gb']} GB; load average "
        f"{run.load_before} before, {run.load_after} after; other processes took up to "
        f"{others:.2f} cores during a tenth",
        f"took {seconds / 60:,.1f} min ({grants / seconds if seconds else 0:,.0f} grants/s) "
        f"after the warm-up; {time.strftime('%Y-%m-%d %H:%M', time.localtime(run.started))}",
        *(
            [f"service environment: {' '.join(opts['service_env'])}"]
            if opts.get("service_env")
            else []
        ),
        "",
        "operations: " + ", ".join(f"{name} {n:,}" for name, n in sorted(ops.items())),
        f"back-channel logout tokens received: {run.backchannel:,} for {run.logouts:,} logouts",
        "errors: "
        + (", ".join(f"{kind} x{n:,}" for kind, n in errors.most_common()) if errors else "none"),
        "",
        f"RSS (MB) at the warm-up and after each tenth; growth from the warm-up to the end; "
        f"least-squares slope of the second half in KB per {PER:,} grants; "
        f"flat below {threshold:,.0f}",
        "",
        *rss_table(run, threshold),
        "",
        "USS (private: Private_Clean + Private_Dirty) and PSS (MB), from smaps_rollup",
        "",
        *private_table(run, threshold),
        "",
    ]
    for kind, sample in sorted({k: v for p in run.phases for k, v in p.samples.items()}.items())[
        :8
    ]:
        lines.append(f"error sample {kind}: {sample[:200]!r}")
    if run.respawned:
        lines.append("workers replaced during the run: " + ", ".join(run.respawned))
    lines += [f"note: {note}" for note in run.notes]
    lines.append(
        "verdict: every process flat" if not growing else "verdict: GROWS: " + ", ".join(growing)
    )
    return "\n".join(lines)


def save(run: Run, text: str, folder: Path, threshold: float) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    source = commit()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(run.started))
    name = f"memory-{stamp}-{source['commit'][:10]}"
    total = run.opts["grants"]
    record = {
        "benchmark": "memory",
        **source,
        "machine": machine(),
        "threshold_kb_per_100k": threshold,
        "started": run.started,
        "ended": run.ended,
        "load_before": run.load_before,
        "load_after": run.load_after,
        "options": run.opts,
        "phases": [asdict(p) for p in run.phases],
        "processes": [
            {
                "label": s.label,
                "service": s.service,
                "role": s.role,
                "pid": s.pid,
                "gone_at": s.gone_at,
                "samples": [
                    {"point": p, "grants": g, **asdict(r)}
                    for p, g, r in zip(s.points, s.grants, s.readings, strict=True)
                ],
                "slope_kb_per_100k": {
                    kind: s.second_half_slope(kind, total)
                    for kind in ("rss_kb", "uss_kb", "pss_kb")
                },
                "verdict": verdict(s.second_half_slope("rss_kb", total), threshold),
            }
            for s in run.series
        ],
        "logouts": run.logouts,
        "backchannel_received": run.backchannel,
        "respawned": run.respawned,
        "notes": run.notes,
    }
    text_path, json_path = folder / f"{name}.txt", folder / f"{name}.json"
    text_path.write_text(text.lstrip("\n") + "\n")
    json_path.write_text(json.dumps(record, indent=1) + "\n")
    return [text_path, json_path]
