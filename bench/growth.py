"""Cost as the data grows (issue #24 item 5; ``bash bench/run.sh --growth``, ``make
bench-growth``).

Two isolated stacks side by side (the test harness, as ``bench/run.py`` starts them), the
same settings, the same benchmark records (``bench/records.py``), the periodic cleanup off
in both: one database stays empty, the other is filled by ``bench/fill.py`` (``--tokens``
refresh tokens and what goes with them). Then, in one run:

1. Sizes of every table and index of the filled database (``pg_relation_size``,
   ``pg_indexes_size``, ``pg_total_relation_size``), and per million refresh tokens.
2. The token rows of ``bench/run.py`` (client_credentials, refresh with rotation, the code
   flow, introspection) on the empty and the filled database, alternating: ``--rounds``
   rounds, the order of the two swapped every row and round; medians, filled ÷ empty.
3. The cleanup under load: refresh and client_credentials windows on the filled stack
   before a cleanup run, while ``idp_common.operations.cleanup.run_cleanup`` deletes the
   expired share in batches of ``--cleanup-batch`` (the operator's run, in this process),
   and after it; p50/p99 of each phase, the cleanup's rows/s and duration.

The report is printed and written to ``bench/results/growth-<time>-<tokens>.{txt,json}``.
Both stacks (databases, Redis keys, processes) are removed at the end, also on SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from bench import fill as fill_mod
from bench import records as rec
from bench.ceilings import Ceilings
from bench.isolated import bench_stack
from bench.measure import LOGS, ROOT, Result, WrkRequest, gen_row, say, wrk_row
from bench.scenarios import SCENARIOS, Run
from idp_common.operations.cleanup import run_cleanup
from idp_common.storage.db.engine import create_engine
from tests.harness import infra
from tests.harness.stack import Stack, remove_stack, start_stack

ROWS = ("client_credentials", "refresh", "code_flow", "introspection")
RESULTS = ROOT / "bench/results"
TARGET_RATIO = 0.10  # filled within 10 % of empty
TARGET_P99 = 2.0  # p99 during the cleanup under 2x before


# --- sizes --------------------------------------------------------------------------------
TABLE_SIZES = """
SELECT c.relname, pg_relation_size(c.oid), pg_indexes_size(c.oid), pg_total_relation_size(c.oid)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 4 DESC
"""
INDEX_SIZES = """
SELECT t.relname, i.relname, pg_relation_size(i.oid)
FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = 'public' ORDER BY 1, 3 DESC
"""


@dataclass
class Sizes:
    tables: list[dict[str, Any]]  # name, rows, heap, indexes, total (bytes)
    indexes: list[dict[str, Any]]  # table, name, bytes
    tokens: int  # refresh_tokens rows


async def _sizes(dsn: str) -> Sizes:
    import asyncpg  # noqa: PLC0415 - only this step reads the catalogue directly

    conn = await asyncpg.connect(dsn)
    try:
        tables = []
        for name, heap, indexes, total in await conn.fetch(TABLE_SIZES):
            rows = await conn.fetchval(f'SELECT count(*) FROM "{name}"')  # noqa: S608
            tables.append(
                {"table": name, "rows": rows, "heap": heap, "indexes": indexes, "total": total}
            )
        indexes = [
            {"table": t, "index": i, "bytes": b} for t, i, b in await conn.fetch(INDEX_SIZES)
        ]
    finally:
        await conn.close()
    tokens = next(t["rows"] for t in tables if t["table"] == "refresh_tokens")
    return Sizes(tables, indexes, tokens)


def sizes_text(sizes: Sizes) -> list[str]:
    per = 1e6 / max(1, sizes.tokens)
    mb = 1024 * 1024
    lines = [
        f"Sizes of the filled database ({sizes.tokens:,} refresh tokens); MB, and MB per "
        "million refresh tokens (/M)",
        f"{'table':<24}{'rows':>12}{'heap':>9}{'indexes':>9}{'total':>9}{'total/M':>9}{'B/row':>7}",
    ]
    for t in sizes.tables:
        if t["total"] < mb and t["rows"] < 1000:
            continue
        lines.append(
            f"{t['table']:<24}{t['rows']:>12,}{t['heap'] / mb:>9.1f}{t['indexes'] / mb:>9.1f}"
            f"{t['total'] / mb:>9.1f}{t['total'] / mb * per:>9.1f}"
            f"{t['total'] / max(1, t['rows']):>7.0f}"
        )
    lines.append(f"{'index':<52}{'MB':>9}{'MB/M tok':>9}{'B/row':>7}")
    rows = {t["table"]: t["rows"] for t in sizes.tables}
    for i in sizes.indexes:
        if rows.get(i["table"], 0) < 1000:
            continue
        lines.append(
            f"{i['table'] + '.' + i['index']:<52}{i['bytes'] / mb:>9.1f}"
            f"{i['bytes'] / mb * per:>9.1f}{i['bytes'] / max(1, rows[i['table']]):>7.0f}"
        )
    return lines


# --- the stacks ---------------------------------------------------------------------------
def restart_token(stack: Stack, workers: int) -> None:
    """A fresh token service on its port: no statement planned before the fill."""
    old = next(p for p in stack.processes if p.name == "token")
    old.stop()
    stack.processes.remove(old)
    stack.wait_until_up(stack.start_service("token", port=old.port, workers=workers))


def vacuum_analyze(stack: Stack) -> None:
    async def run() -> None:
        import asyncpg  # noqa: PLC0415

        conn = await asyncpg.connect(fill_mod.plain_dsn(stack.database_url))
        try:
            await conn.execute("VACUUM (ANALYZE)")
        finally:
            await conn.close()

    infra.run(run())


def no_ceilings() -> Ceilings:
    """The rows measured here need no ceiling (only the sign-in row reads them)."""
    return Ceilings(os.cpu_count() or 1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


# --- empty vs filled ----------------------------------------------------------------------
@dataclass
class Compared:
    row: str
    label: str
    unit: str
    empty: list[Result] = field(default_factory=list)
    filled: list[Result] = field(default_factory=list)


def med(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def compare(runs: dict[str, Run], opts: argparse.Namespace) -> list[Compared]:
    compared = {row: Compared(row, "", "") for row in opts.rows}
    for rnd in range(opts.rounds):
        for i, row in enumerate(opts.rows):
            order = ["empty", "filled"] if (rnd + i) % 2 == 0 else ["filled", "empty"]
            for arm in order:
                say(f"round {rnd + 1}/{opts.rounds}: {row} on the {arm} database")
                run = runs[arm]
                before = len(run.results)
                SCENARIOS[row](run)
                for result in run.results[before:]:
                    entry = compared[row]
                    entry.label, entry.unit = result.label, result.unit
                    getattr(entry, arm).append(result)
    return list(compared.values())


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def compare_text(compared: list[Compared]) -> list[str]:
    lines = [
        "Token rows, empty vs filled database (medians of the rounds; ratio = filled / empty;"
        f" target: rate within {TARGET_RATIO:.0%})",
        f"{'row':<38}{'empty':>9}{'filled':>9}{'ratio':>7}{'p50 e':>8}{'p50 f':>8}"
        f"{'p99 e':>8}{'p99 f':>8}{'p99 r':>7}{'errors':>7}{'oth':>5}  rounds (ok/s e|f)",
    ]
    for c in compared:
        rate_e, rate_f = med([r.rate for r in c.empty]), med([r.rate for r in c.filled])
        p50_e, p50_f = med([r.p50 for r in c.empty]), med([r.p50 for r in c.filled])
        p99_e, p99_f = med([r.p99 for r in c.empty]), med([r.p99 for r in c.filled])
        errors = sum(r.error_count for r in c.empty + c.filled)
        others = med([r.other_cpu for r in c.empty + c.filled]) or 0.0
        rr = ratio(rate_f, rate_e)
        mark = "" if rr is None else (" ok" if abs(rr - 1) <= TARGET_RATIO else " !!")
        rounds = " ".join(
            f"{e.rate:,.0f}|{f.rate:,.0f}" for e, f in zip(c.empty, c.filled, strict=False)
        )
        lines.append(
            f"{c.label[:37]:<38}{rate_e or 0:>9,.0f}{rate_f or 0:>9,.0f}{rr or 0:>7.2f}"
            f"{p50_e or 0:>8.1f}{p50_f or 0:>8.1f}{p99_e or 0:>8.1f}{p99_f or 0:>8.1f}"
            f"{ratio(p99_f, p99_e) or 0:>7.2f}{errors:>7}{others:>5.1f}  {rounds}{mark}"
        )
    for c in compared:
        for arm in ("empty", "filled"):
            for note in sorted({n for r in getattr(c, arm) for n in r.notes}):
                lines.append(f"  note, {c.row} on the {arm} database: {note}")
            for kind, sample in sorted(
                {k: v for r in getattr(c, arm) for k, v in r.samples.items()}.items()
            ):
                lines.append(f"  error sample, {c.row} ({arm}), {kind}: {sample[:160]!r}")
    lines.append(
        "(rates in ok/s, flows/s for the code flow; latencies in ms; oth: cores other"
        " processes on the machine took, median of the row's windows)"
    )
    return lines


# --- the cleanup under load ---------------------------------------------------------------
@dataclass
class Window:
    phase: str  # before, during, after
    row: str
    result: Result
    overlap: float = 1.0  # share of the window the cleanup was running


@dataclass
class CleanupRun:
    counts: dict[str, int] = field(default_factory=dict)
    started: float = 0.0
    ended: float = 0.0
    error: str | None = None

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    @property
    def rows(self) -> int:
        return sum(self.counts.values())


def start_cleanup(
    stack: Stack, batch_size: int, pause: float, delay: float
) -> tuple[threading.Thread, CleanupRun]:
    """``run_cleanup`` as ``idp cleanup`` runs it, after ``delay`` seconds (the next window's
    load is running by then), in a thread with its own event loop."""
    outcome = CleanupRun()

    async def clean() -> None:
        engine = create_engine(stack.database_url)
        try:
            outcome.started = time.monotonic()
            counts = await run_cleanup(
                engine, actor="operator:bench", batch_size=batch_size, pause=pause, wait=True
            )
            outcome.ended = time.monotonic()
            outcome.counts = counts or {}
        finally:
            await engine.dispose()

    def target() -> None:
        time.sleep(delay)
        try:
            asyncio.run(clean())
        except Exception as exc:  # reported, never hidden
            outcome.error = repr(exc)
            outcome.ended = time.monotonic()

    thread = threading.Thread(target=target, name="cleanup", daemon=True)
    thread.start()
    return thread, outcome


#: gen_row and wrk_row start measuring about this long after they are called (generator
#: start-up, then the window's 0.5 s warm-up)
LEAD = 1.5


def cleanup_windows(run: Run, opts: argparse.Namespace) -> tuple[list[Window], CleanupRun]:
    """Windows of refresh and client_credentials before, during and after one run."""
    window_opts = argparse.Namespace(**{**vars(run.opts), "warmup": 0.5})
    window_opts.duration = opts.cleanup_window
    conc = max(opts.concurrency)
    cc = WrkRequest(
        "/oauth2/token",
        "POST",
        {"Authorization": run.fixtures.basic, "Content-Type": "application/x-www-form-urlencoded"},
        f"grant_type=client_credentials&scope={rec.API_SCOPE}",
        '"access_token"',
    )
    refresh_job = {
        **run.host_job("token"),
        "scenario": "refresh",
        "authorization": run.fixtures.basic,
        "timeout": 10.0,
    }
    pool_size = int(opts.refresh_guess * (opts.cleanup_window + 0.5) * 1.5)
    windows: list[Window] = []
    rows = ("refresh", "client_credentials")
    holder: list[tuple[threading.Thread, CleanupRun]] = []

    def window(phase: str, row: str, then: Callable[[], Any] = lambda: None) -> None:
        """One window; ``then`` runs just before its load starts."""
        pool = (
            rec.issue_refresh_tokens(run.stack, run.fixtures, pool_size) if row == "refresh" else []
        )
        then()
        began = time.monotonic() + LEAD
        if row == "client_credentials":
            meter = run.meter()
            result = wrk_row(
                row, "client_credentials", run.token_base, cc, conc, window_opts, meter
            )
        else:
            job = (refresh_job, conc, window_opts, run.meter(), pool)
            result, _ = gen_row(row, "refresh", "req/s", *job)
        ended = time.monotonic()
        overlap = 0.0
        if phase == "during":
            current = holder[0][1]
            start, stop = current.started or ended, current.ended or ended
            overlap = max(0.0, min(ended, stop) - max(began, start)) / max(ended - began, 1e-9)
        windows.append(Window(phase, row, result, overlap))
        note = f" (the cleanup ran through {overlap:.0%} of it)" if phase == "during" else ""
        say(
            f"  {phase} {row}: {result.rate:,.0f}/s p50 {result.p50 or 0:.1f} ms "
            f"p99 {result.p99 or 0:.1f} ms{note}"
        )

    for _ in range(opts.cleanup_before):
        for row in rows:
            window("before", row)

    def launch() -> None:
        holder.append(start_cleanup(run.stack, opts.cleanup_batch, opts.cleanup_pause, LEAD))

    window("during", rows[0], launch)
    thread, outcome = holder[0]
    k = 1
    while thread.is_alive():
        window("during", rows[k % 2])
        k += 1
    thread.join()
    for _ in range(opts.cleanup_before):
        for row in rows:
            window("after", row)
    return windows, outcome


def cleanup_text(windows: list[Window], outcome: CleanupRun, batch: int, pause: float) -> list[str]:
    lines = [
        f"Cleanup under load (filled database, batches of {batch}, {pause * 1000:.0f} ms"
        f" between batches; target: p99 during < "
        f"{TARGET_P99:.0f}x before)",
    ]
    if outcome.error:
        lines.append(f"  the cleanup failed: {outcome.error}")
    lines.append(
        f"  cleanup: {outcome.rows:,} rows in {outcome.seconds:,.1f} s "
        f"({outcome.rows / max(outcome.seconds, 1e-9):,.0f} rows/s): "
        + ", ".join(f"{n:,} {what}" for what, n in outcome.counts.items())
    )
    lines.append(
        f"  {'row':<20}{'phase':<8}{'windows':>8}{'ok/s':>9}{'p50 ms':>8}{'p99 ms':>8}"
        f"{'p99 x':>7}{'errors':>8}"
    )
    for row in ("refresh", "client_credentials"):
        base = None
        for phase in ("before", "during", "after"):
            # during: the windows the cleanup covered for at least half their length
            picked = [
                w
                for w in windows
                if w.row == row and w.phase == phase and (phase != "during" or w.overlap >= 0.5)
            ]
            if not picked:
                lines.append(f"  {row:<20}{phase:<8}{0:>8}  (no window)")
                continue
            rate = statistics.median(w.result.rate for w in picked)
            p50 = med([w.result.p50 for w in picked]) or 0.0
            p99 = max((w.result.p99 or 0.0) for w in picked)  # the worst window
            errors = sum(w.result.error_count for w in picked)
            base = p99 if phase == "before" else base
            times = f"{p99 / base:>7.2f}" if base and phase != "before" else f"{'':>7}"
            lines.append(
                f"  {row:<20}{phase:<8}{len(picked):>8}{rate:>9,.0f}{p50:>8.1f}{p99:>8.1f}"
                f"{times}{errors:>8}"
            )
    lines.append("  (ok/s and p50: median of the windows; p99: the worst window of the phase)")
    return lines


# --- the report ---------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        "?",
    )
    return {
        "commit": commit,
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "loadavg": " ".join(Path("/proc/loadavg").read_text().split()[:3]),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def write_results(text: list[str], data: dict[str, Any], tokens: int) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    base = RESULTS / f"growth-{stamp}-{tokens}"
    base.with_suffix(".txt").write_text("\n".join(text) + "\n")
    base.with_suffix(".json").write_text(json.dumps(data, indent=2, default=str) + "\n")
    return base


# --- main ---------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bash bench/run.sh --growth", description=__doc__)
    shape = fill_mod.Shape()
    parser.add_argument("--tokens", type=int, default=shape.tokens)
    parser.add_argument("--people", type=int, default=shape.people)
    parser.add_argument("--clients", type=int, default=shape.clients)
    parser.add_argument("--jobs", type=int, default=shape.jobs, help="processes filling tokens")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of empty vs filled")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured per row")
    parser.add_argument("--warmup", type=float, default=1.5)
    parser.add_argument("--concurrency", default="64")
    parser.add_argument("--rows", default=",".join(ROWS), help="of: " + ", ".join(ROWS))
    parser.add_argument("--workers", type=int, default=2, help="Granian workers (token)")
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument("--procs", type=int, default=1)
    parser.add_argument("--users", type=int, default=64)
    parser.add_argument("--probe-ms", type=float, default=50.0)
    parser.add_argument("--cleanup-batch", type=int, default=1000, help="SVC_CLEANUP_BATCH_SIZE")
    parser.add_argument(
        "--cleanup-pause", type=float, default=0.0, help="SVC_CLEANUP_BATCH_PAUSE (s)"
    )
    parser.add_argument("--cleanup-window", type=float, default=3.0, help="seconds per window")
    parser.add_argument("--cleanup-before", type=int, default=2, help="windows before/after")
    parser.add_argument("--refresh-guess", type=float, default=1200.0, help="refresh/s, pools")
    parser.add_argument("--no-cleanup", action="store_true", help="skip the cleanup phase")
    parser.add_argument("--fill-only", action="store_true", help="fill, print sizes, stop")
    parser.add_argument(
        "--cleanup-only", action="store_true", help="fill, sizes, the cleanup under load"
    )
    opts = parser.parse_args(argv)
    opts.concurrency = [int(x) for x in opts.concurrency.split(",") if x]
    opts.rows = [r for r in opts.rows.split(",") if r]
    if set(opts.rows) - set(ROWS):
        parser.error(f"unknown row(s): {', '.join(sorted(set(opts.rows) - set(ROWS)))}")
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    settings = {"SVC_CLEANUP_INTERVAL": "0"}  # the only cleanup is the one measured
    stacks: dict[str, tuple[Path, Stack]] = {}
    try:
        one = opts.fill_only or opts.cleanup_only
        for arm in ("filled",) if one else ("empty", "filled"):
            prepared = bench_stack(f"idp-growth-{arm}-", settings)
            if prepared is None:
                return 2
            stacks[arm] = prepared
            say(f"starting the {arm} stack (run {prepared[1].run_id})")
            start_stack(prepared[1], workers={"token": opts.workers})
        return measure_all(opts, {arm: s for arm, (_, s) in stacks.items()})
    finally:
        for arm, (base, stack) in stacks.items():
            say(f"removing the {arm} stack")
            try:
                stack.stop_all()
                infra.run(unlink_prefix(stack.env["SVC_REDIS_PREFIX"]))
                remove_stack(stack)
            finally:
                if arm == "filled" and (stack.work_dir / "logs").is_dir():
                    shutil.rmtree(LOGS, ignore_errors=True)
                    shutil.copytree(stack.work_dir / "logs", LOGS)
                shutil.rmtree(base, ignore_errors=True)


async def unlink_prefix(prefix: str) -> int:
    """UNLINK the keys under ``prefix`` 10,000 at a time: the filled stack's million
    session keys in one DEL (the harness's way) outlast the client's read timeout."""
    redis = Redis.from_url(infra.REDIS_URL)
    removed = 0
    try:
        batch: list[bytes] = []
        async for key in redis.scan_iter(match=f"{prefix}*", count=10_000):
            batch.append(key)
            if len(batch) >= 10_000:
                removed += int(await redis.unlink(*batch))
                batch = []
        if batch:
            removed += int(await redis.unlink(*batch))
    finally:
        await redis.aclose()
    return removed


def measure_all(opts: argparse.Namespace, stacks: dict[str, Stack]) -> int:
    data: dict[str, Any] = {"machine": machine(), "options": vars(opts)}
    text: list[str] = []
    runs = {}
    for arm, stack in stacks.items():
        say(f"creating the benchmark records ({arm})")
        fixtures = rec.create_fixtures(stack, users=opts.users, sessions=max(opts.concurrency))
        runs[arm] = Run(stack, fixtures, opts, no_ceilings())
    shape = fill_mod.Shape(
        tokens=opts.tokens, people=opts.people, clients=opts.clients, jobs=opts.jobs
    )
    filled = stacks["filled"]
    report = fill_mod.fill(
        filled.database_url, filled.env["SVC_REDIS_URL"], filled.env["SVC_REDIS_PREFIX"], shape
    )
    data["fill"] = report.as_dict()
    text += [
        f"Fill: {opts.tokens:,} refresh tokens in {report.seconds:,.1f} s",
        *(f"  {s.name}: {s.rows:,} in {s.seconds:,.1f} s ({s.rate:,.0f}/s)" for s in report.steps),
        f"  refresh tokens: {report.families:,} families, {report.spent_tokens:,} spent, "
        f"{report.revoked_tokens:,} revoked, {report.expired_tokens:,} past expiry + 1 h; "
        f"codes past expiry + 1 h: {report.expired_codes:,}",
        "",
    ]  # fmt: skip
    sizes = infra.run(_sizes(fill_mod.plain_dsn(filled.database_url)))
    data["sizes"] = asdict(sizes)
    text += [*sizes_text(sizes), ""]
    print("\n".join(text), flush=True)
    if opts.fill_only:
        write_results(text, data, opts.tokens)
        return 0
    for arm, stack in stacks.items():
        if arm == "empty":
            vacuum_analyze(stack)
        restart_token(stack, opts.workers)
    if not opts.cleanup_only:
        compared = compare(runs, opts)
        data["compared"] = [asdict(c) for c in compared]
        block = compare_text(compared)
        print("\n".join(block), flush=True)
        text += [*block, ""]
    if not opts.no_cleanup:
        say("the cleanup under load (filled database)")
        windows, outcome = cleanup_windows(runs["filled"], opts)
        data["cleanup"] = {
            "counts": outcome.counts,
            "seconds": outcome.seconds,
            "error": outcome.error,
            "windows": [asdict(w) for w in windows],
        }
        block = cleanup_text(windows, outcome, opts.cleanup_batch, opts.cleanup_pause)
        print("\n".join(block), flush=True)
        text += block
    base = write_results(text, data, opts.tokens)
    say(f"written: {base.relative_to(ROOT)}.txt and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
