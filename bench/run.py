"""Benchmark of the token and sign-in endpoints on an isolated stack (``bash bench/run.sh``).

Starts its own stack with the test harness (own database, Redis prefix, ports, keys),
the token and sign-in services with two Granian workers each and the per-address limits
raised, creates the records it needs, measures every scenario directly at the service
port at each concurrency, prints one table, and removes the stack.

Fixed requests are driven by wrk (``bench/lua/request.lua``); chained or single-use ones
(code flow, refresh, password sign-in) by ``bench/loadgen.py``. Both share the machine's
cores with the services, so the generator is kept lean and its CPU use is printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench import ceilings as ceiling_mod
from bench import records as rec
from bench import replicas
from bench.isolated import bench_stack, remove_bench_stack
from bench.measure import PROBE_MS, say
from bench.report import log_findings, print_report
from bench.scenarios import SCENARIOS as RATE_SCENARIOS
from bench.scenarios import Run
from tests.harness.stack import start_stack

#: The rate rows, then issue 22's replicas x1/x2 and metrics cost (bench/replicas.py).
SCENARIOS = {**RATE_SCENARIOS, "replicas": replicas.scenario}


# --- main -------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=6.0, help="seconds measured per row")
    parser.add_argument("--warmup", type=float, default=1.5, help="seconds of warm-up per row")
    parser.add_argument("--concurrency", default="16,64", help="comma-separated levels")
    parser.add_argument("--workers", type=int, default=2, help="Granian workers (token, authui)")
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument("--procs", type=int, default=1, help="Python generator processes")
    parser.add_argument(
        "--users",
        type=int,
        default=64,
        help="people signing in: one per connection at c=64, as many people sign in at once; "
        "the account throttle evaluates at most 5 attempts of one account at a time",
    )
    parser.add_argument(
        "--probe-ms",
        type=float,
        default=PROBE_MS,
        help="event-loop probe interval (each probe is a new connection and takes CPU)",
    )
    parser.add_argument(
        "--only",
        default=",".join(SCENARIOS),
        help="comma-separated scenarios: " + ", ".join(SCENARIOS),
    )
    opts = parser.parse_args(argv)
    opts.concurrency = [int(x) for x in opts.concurrency.split(",") if x]
    opts.only = [x for x in opts.only.split(",") if x]
    unknown = set(opts.only) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    for first in ("bare_sign", "hello"):  # ratios need the ceiling, targets the yardstick
        if first not in opts.only:
            opts.only.insert(0, first)
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    prepared = bench_stack("idp-bench-")
    if prepared is None:
        return 2
    base, stack = prepared
    load_before = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    try:
        say(f"starting an isolated stack (run {stack.run_id}) in {base}")
        start_stack(stack, workers={"token": opts.workers, "authui-api": opts.workers})
        say("creating records (API scope, client, people, browser sessions)")
        fixtures = rec.create_fixtures(stack, users=opts.users, sessions=max(opts.concurrency))
        say("measuring ceilings: RS256 sign/verify, argon2id")
        ceilings = ceiling_mod.measure(stack.key_dir)
        run = Run(stack, fixtures, opts, ceilings, load_before=load_before)
        for name, scenario in SCENARIOS.items():
            if name in opts.only:
                say(f"scenario {name}")
                scenario(run)
        if "bare_sign" in opts.only:
            say("the yardstick again, at the end")
            run.bare_sign("bare Litestar route, again at the end")
        run.notes += log_findings(stack)
        print_report(run)
        return 0
    finally:
        remove_bench_stack(base, stack)


if __name__ == "__main__":
    sys.exit(main())
