"""What the token service's lean transport saves (issue 24 item 3):
``bash bench/run.sh --levers`` (``make bench-levers``).

One isolated stack (the test harness) with a confidential client, an API, a person, an
access token and enough refresh tokens; then ``bench/levers_inprocess.py`` drives the
token app in one process with ``SVC_LEAN_ROUTES`` on and off, interleaved, and this prints
the CPU per request of each row, on and off, and their ratio. In process, without Granian
and the kernel, so the ratio is of the app's own work; ``make bench-peer`` shows the
effect on the whole request (docs/performance.md "Levers").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from bench import records as rec
from bench.isolated import bench_stack, remove_bench_stack
from bench.measure import ROOT, say
from bench.memory_report import commit, machine
from bench.metrics_cost import _measure_in_subprocess
from tests.harness.stack import start_stack

ROWS = ("client_credentials", "userinfo", "introspection", "refresh")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run.sh --levers", description=__doc__)
    parser.add_argument("--rows", default=",".join(ROWS), help="comma-separated rows")
    parser.add_argument("--batch", type=int, default=500, help="requests per batch")
    parser.add_argument("--rounds", type=int, default=10, help="batches of each arm per row")
    return parser.parse_args(argv)


def fixtures(stack: Any, refreshes: int) -> dict[str, Any]:
    made = rec.create_fixtures(stack, users=4, sessions=4)
    token, how = rec.access_token_from_endpoint(stack, made)
    if token is None:
        raise RuntimeError(f"no access token: {how}")
    return {
        "basic": made.basic,
        "api_scope": made.api_scope,
        "access_token": token,
        "refresh_tokens": rec.issue_refresh_tokens(stack, made, refreshes),
    }


def table(rows: list[str], result: dict[str, Any], opts: argparse.Namespace) -> list[str]:
    """The printed (and written) table, with the commit and the machine."""
    lines = [
        f"Lean transport on and off, in process: {opts.rounds} batches of {opts.batch} per arm"
        " and row, interleaved; median CPU µs per request",
        f"commit {json.dumps(commit())}; machine {json.dumps(machine())}",
        "",
        f"{'row':<20} {'full µs':>9} {'lean µs':>9} {'lean÷full':>10}  statuses",
    ]
    for row in rows:
        full, lean = result[row]["full"], result[row]["lean"]
        ratio = lean["median_us"] / full["median_us"]
        lines.append(
            f"{row:<20} {full['median_us']:>9.1f} {lean['median_us']:>9.1f} {ratio:>10.2f}"
            f"  full {full['statuses']} lean {lean['statuses']}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    rows = opts.rows.split(",")
    prepared = bench_stack("idp-bench-levers-", {"SVC_ACCESS_TOKEN_TTL": "3600"}, wrk=False)
    if prepared is None:
        return 2
    base, stack = prepared
    try:
        say(f"starting an isolated stack (run {stack.run_id}) in {base}")
        start_stack(stack)
        made = fixtures(stack, 2 * opts.batch * (opts.rounds + 2) + 100)
        say(f"in process: {opts.rounds} batches of {opts.batch} per arm and row, interleaved")
        fixture_file = base / "fixtures.json"  # too long for the environment
        fixture_file.write_text(json.dumps(made))
        env = {**stack.env, "BENCH_FIXTURES": str(fixture_file)}
        command = ["bench.levers_inprocess", ",".join(rows), str(opts.batch), str(opts.rounds)]
        result = _measure_in_subprocess(command, env)
        lines = table(rows, result, opts)
        print("\n".join(lines))
        written = ROOT / "bench/results" / time.strftime("levers-%Y%m%dT%H%M%SZ.txt", time.gmtime())
        written.write_text("\n".join(lines) + "\n")
        say(f"written: {written}")
        return 0
    finally:
        remove_bench_stack(base, stack)


if __name__ == "__main__":
    sys.exit(main())
