"""Where the standing check's time goes: ``bash bench/run.sh --standing-profile [--before
DIR]``.

The stack, records and services of ``bench/standing_cost.py`` (one Granian worker per
service, so that one process holds the whole load), and for each row and side: wrk at
``--concurrency`` (64) for ``--duration`` seconds while py-spy (``uvx py-spy``, as
``bench/profile.py`` runs it) samples the worker. Prints, per row and side, the samples
by package and the functions with the most samples (``bench.profile.report``), and then
the functions whose share of the worker's samples differs most between the two sides,
each also in µs of CPU per request (the share times the service's CPU per request,
measured in the same window by ``/proc``; sampling slows the worker, so read the µs
beside the ones of ``make bench-standing``, not instead of them).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench.isolated import bench_stack, remove_bench_stack
from bench.measure import say, wrk_row
from bench.metrics_rounds import ServiceMeter
from bench.profile import FRAME, read_stacks, report, short
from bench.standing_cost import MAKE_BEFORE, ROWS, rows_of
from bench.standing_records import create_tokens
from bench.standing_rounds import Row, check_sides, start_pairs, stop_pairs
from bench.standing_services import AFTER, BEFORE, Checkout
from tests.harness.process import Process, children
from tests.harness.stack import Stack, start_stack

#: Our code in a frame's file path (the services and the common library).
OURS = ("idp_common/", "token_service/", "entity_service/")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run.sh --standing-profile", description=__doc__)
    parser.add_argument("--before", help=f"the checkout to compare with (`{MAKE_BEFORE}`)")
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=1.5)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rate", type=int, default=250, help="samples per second")
    parser.add_argument("--top", type=int, default=15)
    opts = parser.parse_args(argv)
    opts.rows = [x for x in opts.rows.split(",") if x]
    return opts


def inclusive(stacks: list[tuple[list[str], int]]) -> tuple[Counter[str], int]:
    """Samples each of our functions is on the stack of, and all samples."""
    found: Counter[str] = Counter()
    for frames, count in stacks:
        for frame in set(frames):
            match = FRAME.match(frame)
            if match and any(part in match["file"] for part in OURS):
                found[f"{match['func']} ({match['file']})"] += count
    return found, sum(count for _, count in stacks) or 1


def own_by_function(stacks: list[tuple[list[str], int]]) -> Counter[str]:
    """Samples of each innermost frame, without its line (comparable across trees)."""
    found: Counter[str] = Counter()
    for frames, count in stacks:
        match = FRAME.match(frames[-1])
        found[f"{match['func']} ({match['file']})" if match else short(frames[-1])] += count
    return found


def sample(
    stack: Stack, row: Row, process: Process, opts: argparse.Namespace, raw: Path
) -> tuple[list[tuple[list[str], int]], float]:
    """The py-spy stacks of the service's worker while wrk drives the row, and the
    service's CPU µs per answered request meanwhile."""
    (worker,) = children(process.popen.pid) or {process.popen.pid}
    window = argparse.Namespace(warmup=0.0, duration=opts.warmup, wrk_threads=1)
    roots = [p.popen.pid for p in stack.processes]
    wrk_row(
        row.key,
        row.key,
        process.url,
        row.request,
        opts.concurrency,
        window,
        ServiceMeter(roots, stack.db_name, process.popen.pid),
    )
    spy = subprocess.Popen(
        [
            *("uvx", "py-spy", "record", "--pid", str(worker), "--rate", str(opts.rate)),
            *("--format", "raw", "--output", str(raw), "--nonblocking"),
            *("--duration", str(int(opts.duration))),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    meter = ServiceMeter(roots, stack.db_name, process.popen.pid)
    window = argparse.Namespace(warmup=0.0, duration=opts.duration, wrk_threads=1)
    try:
        result = wrk_row(
            row.key, row.key, process.url, row.request, opts.concurrency, window, meter
        )
    finally:
        _, err = spy.communicate()
    if spy.returncode != 0 or not raw.exists():
        raise SystemExit(f"py-spy failed ({spy.returncode}): {err.strip()[-300:]}")
    if result.error_count:
        raise SystemExit(f"{row.key}: {result.error_count} answers were not successes")
    return read_stacks(raw), meter.service_cpu / max(1, result.ok) * 1e6


def compare(
    row: str, profiles: dict[str, tuple[list[tuple[list[str], int]], float]], top: int
) -> None:
    """Our functions by µs per request on each side, the largest differences first."""
    per_side: dict[str, dict[str, float]] = {}
    for side, (stacks, cpu_us) in profiles.items():
        counts, total = inclusive(stacks)
        per_side[side] = {name: cpu_us * n / total for name, n in counts.items()}
    before, after = per_side.get(BEFORE, {}), per_side.get(AFTER, {})
    names = set(before) | set(after)
    ranked = sorted(names, key=lambda n: -abs(after.get(n, 0.0) - before.get(n, 0.0)))
    cpu = {side: cpu_us for side, (_, cpu_us) in profiles.items()}
    print(
        f"\n== {row}: service CPU per request while sampled: "
        + ", ".join(f"{side} {value:.0f} µs" for side, value in cpu.items())
    )
    print(
        "  our functions, µs per request they are on the stack of "
        "(share of samples times CPU per request):"
    )
    print(f"    {'before':>8} {'after':>8} {'added':>8}  function")
    for name in ranked[:top]:
        was, now = before.get(name, 0.0), after.get(name, 0.0)
        print(f"    {was:>8.1f} {now:>8.1f} {now - was:>+8.1f}  {name}")
    own = {side: own_by_function(stacks) for side, (stacks, _) in profiles.items()}
    totals = {side: sum(counter.values()) or 1 for side, counter in own.items()}
    print("  innermost frames, µs per request (share of own samples times CPU per request):")
    print(f"    {'before':>8} {'after':>8} {'added':>8}  function")
    keys = set().union(*(set(counter) for counter in own.values()))

    def us(side: str, key: str) -> float:
        return cpu[side] * own[side][key] / totals[side] if side in own else 0.0

    for key in sorted(keys, key=lambda k: -abs(us(AFTER, k) - us(BEFORE, k)))[:top]:
        was, now = us(BEFORE, key), us(AFTER, key)
        print(f"    {was:>8.1f} {now:>8.1f} {now - was:>+8.1f}  {key}")


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    if shutil.which("uvx") is None:
        print("uvx (from uv) is needed to run py-spy", file=sys.stderr)
        return 2
    checkouts = {AFTER: Checkout.this_tree()}
    if opts.before:
        checkouts = {BEFORE: Checkout.before(opts.before), **checkouts}
    prepared = bench_stack("idp-standing-profile-", {"SVC_ACCESS_TOKEN_TTL": "14400"})
    if prepared is None:
        return 2
    base, stack = prepared
    out = Path(tempfile.mkdtemp(prefix="idp-standing-profile-out-"))
    try:
        say(f"starting an isolated stack (run {stack.run_id})")
        start_stack(stack)
        tokens = create_tokens(stack)
        rows = rows_of(tokens, opts.rows)
        names = list(dict.fromkeys(row.service for row in rows))
        pairs = start_pairs(stack, checkouts, names, 1, 1)
        try:
            check_sides(pairs, tokens.ended)
            for row in rows:
                profiles = {}
                for side in checkouts:
                    say(f"profiling {row.key} on {side}")
                    process = pairs.services[side][row.service]
                    profiles[side] = sample(
                        stack, row, process, opts, out / f"{row.key}-{side}.txt"
                    )
                    print(f"\n#### {row.key}, {side}")
                    report(f"{row.key} ({side})", profiles[side][0], opts.top)
                compare(row.key, profiles, opts.top)
        finally:
            stop_pairs(stack, pairs)
        return 0
    finally:
        remove_bench_stack(base, stack)
        print(f"\nraw py-spy stacks kept in {out}")


if __name__ == "__main__":
    sys.exit(main())
