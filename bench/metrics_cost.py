"""What the metrics cost (issue 22): ``bash bench/run.sh --metrics`` (``make bench-metrics``).

One isolated stack (the test harness), and beside it, in each round, a fresh pair of token
services on the same code, settings and keys, one with ``SVC_METRICS_ENABLED=true`` and one
with ``false``, each ``idp serve token --workers N`` (default 1), started in an order that
alternates and with one ``PYTHONHASHSEED`` for the pair: two identical services differ by
5-15 % on this machine (each process's own layout and placement), so one pair measured
for long says little and many fresh pairs are compared instead. In each round each row is
measured with wrk at the service port on both, one service at a time (the other idles),
the order alternating from round to round so that a drift of the machine weighs on both
alike:

- ``client_credentials``: POST /oauth2/token, client_secret_basic (one RS256 signature);
- ``userinfo``: GET /oauth2/userinfo with a bearer token (the cheapest real request).

Then the same two rows in process (``bench/metrics_inprocess.py``: the token app driven
through ASGI without a server, bare and wrapped as metrics wrap it, in batches interleaved
in one process): the CPU microseconds metrics add to one request, the figure that other
processes on a shared machine disturb least.

Prints every round, the medians, and on ÷ off: the issue's bound is a cost under 3 % of
throughput. Beside each rate it prints the CPU time the service (master and workers, read
from ``/proc``) spent per answered request: on a machine shared with other work the rate
moves with the neighbours' load, the CPU per request much less, and while the service is
CPU-bound its throughput is the cores it gets divided by that figure. Afterwards it
checks that the last "on" service counted what it answered (its ``/metrics``) and that
the "off" one answers ``/metrics`` 404.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from typing import Any
from urllib.parse import quote

from bench import records as rec
from bench.isolated import bench_stack
from bench.measure import FORM, ROOT, WrkRequest, say
from bench.metrics_rounds import Checks, Row, measure
from idp_common.observability.multiprocess import MULTIPROC_ENV
from tests.harness.stack import Stack, remove_stack, start_stack

BOUND = 0.03  # the issue: metrics cost less than 3 % of throughput


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run.sh --metrics", description=__doc__)
    parser.add_argument("--rounds", type=int, default=10, help="pairs of fresh services")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured per run")
    parser.add_argument("--warmup", type=float, default=1.5, help="seconds of warm-up per run")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--workers", type=int, default=1, help="Granian workers per service")
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument(
        "--in-process-rounds",
        type=int,
        default=200,
        help="batches of each arm in process (0: none)",
    )
    return parser.parse_args(argv)


def requests(stack: Stack, fixtures: rec.Fixtures) -> list[Row]:
    token, how = rec.access_token_from_endpoint(stack, fixtures)
    if token is None:
        raise RuntimeError(f"no access token for userinfo: {how}")
    return [
        Row(
            "client_credentials",
            WrkRequest(
                "/oauth2/token",
                "POST",
                {"Authorization": fixtures.basic, "Content-Type": FORM},
                f"grant_type=client_credentials&scope={quote(rec.API_SCOPE)}",
                '"access_token"',
            ),
        ),
        Row(
            "userinfo",
            WrkRequest(
                "/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"}, expect='"sub"'
            ),
            app_batch=500,
        ),
    ]


def _measure_in_subprocess(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """``python -m COMMAND`` in a multiprocess directory of its own, as a worker has; the
    JSON line it prints last."""
    with tempfile.TemporaryDirectory(prefix="idp-bench-mp-") as directory:
        out = subprocess.run(
            [sys.executable, "-m", *command],
            env={**os.environ, **env, MULTIPROC_ENV: directory},
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"{command[0]} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return dict(json.loads(lines[-1]))


def wrapper_alone() -> dict[str, Any]:
    """``bench.metrics_wrapper``: the request wrapper's own cost."""
    return _measure_in_subprocess(["bench.metrics_wrapper"], {})


def in_process(stack: Stack, row: Row, rounds: int) -> None:
    """``bench.metrics_inprocess``: the two arms interleaved in one process."""
    env = {
        **stack.env,
        "SVC_METRICS_ENABLED": "false",  # the bare app; the script wraps it itself
        "BENCH_HEADERS": json.dumps(row.request.headers),
        "BENCH_BODY": row.request.body,
    }
    command = ["bench.metrics_inprocess", row.key, str(row.app_batch), str(rounds)]
    result = _measure_in_subprocess(command, env)
    if set(result["statuses"]) != {"200"}:
        raise RuntimeError(f"in-process {row.key}: answers {result['statuses']}")
    row.app = result
    say(
        f"  in process {row.key}: on {result['on']['median']:.1f} µs, "
        f"off {result['off']['median']:.1f} µs (medians of {rounds} batches each)"
    )


def report(rows: list[Row], checks: Checks, opts: argparse.Namespace) -> None:
    print(
        f"\nMetrics cost: token service, {opts.workers} Granian worker(s) each, wrk "
        f"-c{opts.concurrency}, {opts.rounds} rounds (a fresh pair of services each) of "
        f"{opts.duration:.0f} s per service and row, alternating\n"
    )
    print(
        f"{'row':<20} {'round':>5} {'on req/s':>10} {'off req/s':>10} {'on/off':>7} "
        f"{'on µs/req':>10} {'off µs/req':>10}"
    )
    for row in rows:
        runs = zip(row.on, row.off, row.on_cpu, row.off_cpu, strict=True)
        for number, (on, off, on_cpu, off_cpu) in enumerate(runs, start=1):
            print(
                f"{row.key:<20} {number:>5} {on:>10,.0f} {off:>10,.0f} {on / off:>7.3f} "
                f"{on_cpu:>10.1f} {off_cpu:>10.1f}"
            )
    print(
        f"\n{'row':<20} {'median on':>10} {'median off':>10} {'on/off':>7} {'cost':>7} "
        f"{'on µs':>7} {'off µs':>7} {'cpu cost':>8} {'oth cpu':>8} {'bound <3%':>9}"
    )
    for row in rows:
        on, off = statistics.median(row.on), statistics.median(row.off)
        on_cpu, off_cpu = statistics.median(row.on_cpu), statistics.median(row.off_cpu)
        cost, cpu_cost = 1 - on / off, on_cpu / off_cpu - 1
        verdict = "met" if cost < BOUND else "NOT met"
        print(
            f"{row.key:<20} {on:>10,.0f} {off:>10,.0f} {on / off:>7.3f} {cost:>7.1%} "
            f"{on_cpu:>7.1f} {off_cpu:>7.1f} {cpu_cost:>8.1%} {max(row.other_cpu):>8.2f} "
            f"{verdict:>9}"
        )
        if row.errors:
            print(f"  {row.key}: {row.errors} answers were not successes (see wrk)")
    if any(row.app for row in rows):
        print(
            f"\nIn process (the token app through ASGI, no server, the wrapped and the bare "
            f"app interleaved in one process, {opts.in_process_rounds} batches each; CPU µs "
            "per request)\n"
        )
        print(
            f"{'row':<20} {'median on':>10} {'median off':>10} {'added':>7} "
            f"{'mean on':>8} {'mean off':>8} {'added':>7} {'of app':>7} {'of service':>10}"
        )
        for row in rows:
            on, off = row.app["on"], row.app["off"]
            added = on["median"] - off["median"]
            service = statistics.median(row.off_cpu)
            print(
                f"{row.key:<20} {on['median']:>10.1f} {off['median']:>10.1f} {added:>7.1f} "
                f"{on['mean']:>8.1f} {off['mean']:>8.1f} {on['mean'] - off['mean']:>7.1f} "
                f"{added / off['median']:>7.1%} {added / service:>10.1%}"
            )
        print(
            "'of app': the median added over the app's own CPU (no Granian, no kernel: an "
            "upper bound); 'of service': over the service's CPU per request measured with "
            "wrk above (metrics off)."
        )
    print(
        f"\nchecks (last round): the 'on' service answered {checks.answered:,} token requests "
        f"in its measured run and counted {checks.counted:,.0f} in all (warm-up and the "
        f"userinfo token included); the 'off' service answers /metrics {checks.off_status}"
    )
    print(
        "cost = 1 - median(on) / median(off) (the bound applies to it); cpu cost = median "
        "µs of service CPU per request on / off - 1; 'oth cpu': the most cores other "
        "processes took during one run (the machine's noise)."
    )


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    # The userinfo token outlives the run.
    prepared = bench_stack("idp-bench-metrics-", {"SVC_ACCESS_TOKEN_TTL": "3600"})
    if prepared is None:
        return 2
    base, stack = prepared
    try:
        say(f"starting an isolated stack (run {stack.run_id}) in {base}")
        start_stack(stack)
        fixtures = rec.create_fixtures(stack, users=1, sessions=1)
        rows = requests(stack, fixtures)
        say(f"measuring: {opts.rounds} rounds, a fresh pair of services each, alternating")
        checks = measure(stack, rows, opts)
        if opts.in_process_rounds:
            say(f"in process: {opts.in_process_rounds} batches of each, interleaved")
            for row in rows:
                in_process(stack, row, opts.in_process_rounds)
        report(rows, checks, opts)
        return 0
    finally:
        say("removing the stack")
        remove_stack(stack)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
