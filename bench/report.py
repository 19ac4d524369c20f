"""The benchmark's report: the table of rows against the issue's targets, the CPU
ceilings, the errors, and exceptions found in the services' logs."""

from __future__ import annotations

import json
from collections import Counter

from bench.bare_sign import ISSUE_BARE_RATE
from bench.measure import EXCEPTION_LINE, LOGS, ROOT, Result
from bench.scenarios import Run
from tests.harness.stack import Stack

# --- targets and the report -------------------------------------------------------------
#: Issue 3's figures at concurrency 64 (on its machine: bare sign route ~4,300/s).
ISSUE_MINIMUM = {
    "client_credentials": 3500,
    "code_flow": 1300,
    "refresh": 1800,
    "introspection": 7500,
    "userinfo": 9000,
}
ISSUE_CC_P99_MS = 30.0


def target_of(run: Run, r: Result) -> tuple[str, bool | None]:
    """The issue's target for this row (at concurrency 64) and whether it is met.

    The figures are scaled by this machine's speed (:attr:`Run.machine_scale`): a rate
    target times the scale, the latency bound divided by it. Without the yardstick row the
    issue's figures are used as they are.
    """
    if r.key == "signin":
        need = 0.8 * run.ceilings.argon2_ceiling
        text = f">= 80% argon2 = {need:,.1f}/s"
        return text, (r.rate >= need and not r.error_count) if r.conc == 64 else None
    if r.key not in ISSUE_MINIMUM:
        return {"hello": "(ceiling)", "bare_sign": "(yardstick)"}.get(r.key, ""), None
    if r.conc != 64:
        return "", None
    scale = run.machine_scale or 1.0
    need = ISSUE_MINIMUM[r.key] * scale
    text = f">= {ISSUE_MINIMUM[r.key]:,} x {scale:.2f} = {need:,.0f}/s"
    met = r.rate >= need and not r.error_count
    if r.key == "client_credentials":
        bound = ISSUE_CC_P99_MS / scale
        text += f", p99 < {bound:.0f} ms"
        met = met and r.p99 is not None and r.p99 < bound
    return text, met


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def report_table(run: Run) -> list[str]:
    c, opts = run.ceilings, run.opts
    head = (
        f"{'scenario':<42} {'conc':>4} {'ok/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'errors':>7} {'vs hello':>8} {'gen cpu':>7} {'oth cpu':>7}  "
        f"{'target (c=64, scaled)':<38} met"
    )
    out = [
        "",
        f"IdP benchmark - {c.cores} cores, token and authui-api services with "
        f"{opts.workers} Granian workers each, measured at the service ports (no nginx)",
        f"warm-up {opts.warmup:g} s, measurement {opts.duration:g} s per row and concurrency; "
        f"load generators share the cores: wrk -t{opts.wrk_threads} (fixed requests), "
        f"{opts.procs} Python asyncio process(es) (chained/single-use rows)",
        "",
        head,
        "-" * len(head),
    ]
    for r in run.results:
        hello = run.result("hello", r.conc)
        ratio = f"{r.rate / hello.rate:.2f}" if hello and hello.rate else "-"
        target, met = target_of(run, r)
        verdict = {True: "yes", False: "NO", None: ""}[met]
        out.append(
            f"{r.label:<42} {r.conc:>4} {r.rate:>9,.0f} {ms(r.p50):>8} {ms(r.p99):>8} "
            f"{r.error_count:>7,} {ratio:>8} {r.gen_cpu:>7.2f} {r.other_cpu:>7.2f}  "
            f"{target:<38} {verdict}"
        )
    out.append(
        "ok/s: successes only (code flow: complete flows; refresh: one fresh token each); "
        "p50/p99 over successes\n(wrk rows: over every answer). gen cpu: cores the load "
        "generator used; oth cpu: cores taken by\nprocesses outside this run (another test "
        "suite on the machine lowers every figure)."
    )
    busy = [r for r in run.results if r.other_cpu > 0.25]
    if busy:
        out.append(
            f"WARNING: other processes took > 0.25 core during {len(busy)} of "
            f"{len(run.results)} rows (load average before the run: {run.load_before}); "
            "figures are lower than on an idle machine."
        )
    return out


def report_ceilings(run: Run) -> list[str]:
    c = run.ceilings
    out = ["", "ceilings (same machine, same run):"]
    for conc in run.opts.concurrency:
        hello = run.result("hello", conc)
        if hello:
            out.append(f"  hello-world GET /health/live (token), c={conc}: {hello.rate:,.0f} req/s")
    if run.machine_scale is not None:
        bare = run.yardstick
        assert bare is not None
        out.append(
            f"  yardstick: bare Litestar route signing one RS256 JWT, c=64: {bare.rate:,.0f}/s "
            "(the faster of first and last); "
            f"the issue's machine: about {ISSUE_BARE_RATE:,.0f}/s\n"
            f"    this machine = {run.machine_scale:.2f} x the issue's; rate targets are "
            f"multiplied by it, the p99 bound divided"
        )
    out += [
        f"  RS256 sign (joserfc, 2048-bit run key): {c.sign_single:,.0f}/s in one process, "
        f"{c.sign_all:,.0f}/s with {c.cores} processes",
        f"  RS256 verify: {c.verify_single:,.0f}/s in one process, "
        f"{c.verify_all:,.0f}/s with {c.cores} processes",
        f"  argon2id (m=64 MiB, t=3, p=4): one verification takes {c.argon2_seconds * 1000:.0f} ms "
        f"wall, {c.argon2_cpu_seconds * 1000:.0f} ms CPU"
        + (
            ""
            if c.argon2_cpu_again is None
            else f" ({c.argon2_cpu_again * 1000:.0f} ms CPU again after the sign-ins;"
            " the lower is used)"
        ),
        f"    ceiling = {c.cores} cores / {c.argon2_cpu_used * 1000:.0f} ms CPU = "
        f"{c.argon2_ceiling:.1f} sign-ins/s (used for the target); measured with {c.cores} "
        f"processes: {c.argon2_all:.1f}/s; cores / wall time would say "
        f"{c.argon2_wall_ceiling:.1f}/s",
    ]
    for r in run.results:
        if r.key == "signin":
            measured = r.rate / c.argon2_all if c.argon2_all else 0.0
            out.append(
                f"  password sign-in c={r.conc}: {r.rate:.1f}/s = "
                f"{r.rate / c.argon2_ceiling:.0%} of the argon2 ceiling "
                f"({measured:.0%} of the measured {c.cores}-process rate)"
            )
    if run.probes:
        out += [
            "",
            f"event-loop probe: GET /health/live every {run.opts.probe_ms:g} ms (new connection "
            "each, own process);",
            "the idle token service is the control: its latency is the machine's CPU queue,",
            "the loaded service's extra latency is its own event loop being held up:",
        ]
        for p in run.probes:
            errs = f", errors {p.errors}" if p.errors else ""
            out.append(
                f"  {p.label:<42} n={p.count:<5} p50 {ms(p.p50):>7} ms  p99 {ms(p.p99):>7} ms  "
                f"max {ms(p.worst):>7} ms{errs}"
            )
        out.append(
            "  (a loop blocked by hashing or signing shows up as hundreds of ms; n far below\n"
            f"   {1000 / run.opts.probe_ms:g} per second means the probes themselves waited "
            "that long)"
        )
    return out


def report_errors(run: Run) -> list[str]:
    details = [r for r in run.results if r.errors or r.notes]
    if not details and not run.notes:
        return []
    out = ["", "errors and notes (answers other than the expected 2xx/302 never count as ok):"]
    for r in details:
        for kind, count in r.errors.most_common():
            sample = r.samples.get(kind, "").replace("\n", " ")[:160]
            shown = f"  {sample!r}" if sample else ""
            out.append(f"  {r.label} c={r.conc}: {count:,} x {kind}{shown}")
        out += [f"  {r.label} c={r.conc}: {note}" for note in r.notes]
    out += [f"  {note}" for note in run.notes]
    return out


def print_report(run: Run) -> None:
    out = report_table(run) + report_ceilings(run) + report_errors(run) + [""]
    print("\n".join(out), flush=True)


def log_findings(stack: Stack) -> list[str]:
    """Tracebacks in the services' logs, counted by the exception that ended each one."""
    notes = []
    for process in stack.processes:
        try:
            lines = process.log_path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        lines = [*lines, *_json_tracebacks(lines)]
        kinds = Counter(match.group(1) for line in lines if (match := EXCEPTION_LINE.match(line)))
        tracebacks = sum(1 for line in lines if line.startswith("Traceback"))
        if tracebacks:
            found = ", ".join(f"{kind} x{n}" for kind, n in kinds.most_common(4))
            notes.append(
                f"{process.name} log: {tracebacks} traceback(s) ({found}); see "
                f"{LOGS.relative_to(ROOT)}/{process.log_path.name}"
            )
    return notes


def _json_tracebacks(lines: list[str]) -> list[str]:
    """The lines of the tracebacks that JSON log lines carry in their ``exception`` field
    (``SVC_LOG_FORMAT=json``, the default), to be counted as the text ones are."""
    found: list[str] = []
    for line in lines:
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("exception"), str):
            found.extend(record["exception"].splitlines())
    return found
