"""Token replicas x1 and x2 through the proxy, and what /metrics costs, in one run (issue 22).

A scenario of ``make bench`` (``bash bench/run.sh --only replicas`` runs it alone). Beside
the run's stack it starts two token replicas of one Granian worker each (``idp serve token
--workers 1``, metrics on, as operators run them) and two proxies rendered by
``proxy/render.py`` with the proxy's own limits raised: one whose token upstream is the
first replica, one with both. Round after round, the order alternating, wrk sends
client_credentials and userinfo through each proxy at the highest concurrency of the run;
the medians and x2 / x1 say how throughput scales on this machine's cores (the proxy and
wrk share them). Then the metrics cost: ``bench.metrics_cost``'s fresh pairs of token
services, metrics on and off, in the same run.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass, field

from bench import metrics_cost, metrics_rounds
from bench.measure import RAISED_LIMIT, Result, say, wrk_row
from bench.scenarios import Run
from tests.harness.process import Process
from tests.harness.stack import Stack

#: The proxy's own per-address limits, raised out of the way (one address sends it all).
UNLIMITED = ("--signin-rate", "1000000r/s", "--signin-burst", "1000000")
#: Rounds of the x1/x2 comparison and of the metrics pairs.
ROUNDS = 5


@dataclass
class Scaling:
    key: str
    one: list[float] = field(default_factory=list)
    two: list[float] = field(default_factory=list)
    errors: int = 0


def _replicas(stack: Stack) -> list[Process]:
    overrides = {"SVC_TOKEN_PER_IP": RAISED_LIMIT, "SVC_METRICS_ENABLED": "true"}
    started = [stack.start_service("token", overrides, workers=1) for _ in range(2)]
    for process in started:
        stack.wait_until_up(process)
    return started


def _proxy(stack: Stack, name: str, replicas: list[Process]) -> Process:
    proxy = stack.start_proxy(
        name=name, extra_args=UNLIMITED, upstreams={"token": [p.port for p in replicas]}
    )
    stack.wait_until_up(proxy, "/.well-known/jwks.json")
    return proxy


def _measure_scaling(run: Run, rows: list[metrics_rounds.Row], conc: int) -> list[Scaling]:
    stack = run.stack
    replicas = _replicas(stack)
    proxies = {1: _proxy(stack, "proxy-x1", replicas[:1]), 2: _proxy(stack, "proxy-x2", replicas)}
    figures = [Scaling(row.key) for row in rows]
    try:
        for number in range(ROUNDS):
            order = (1, 2) if number % 2 == 0 else (2, 1)
            for row, figure in zip(rows, figures, strict=True):
                for count in order:
                    result = wrk_row(
                        row.key,
                        row.key,
                        proxies[count].url,
                        row.request,
                        conc,
                        run.opts,
                        run.meter(),
                    )
                    (figure.one if count == 1 else figure.two).append(result.rate)
                    figure.errors += result.error_count
                say(
                    f"  round {number + 1} {row.key}: x1 {figure.one[-1]:,.0f}/s, "
                    f"x2 {figure.two[-1]:,.0f}/s"
                )
    finally:
        for process in [*proxies.values(), *replicas]:
            process.stop()
            stack.processes.remove(process)
    return figures


def _metrics_opts(run: Run, conc: int) -> argparse.Namespace:
    return argparse.Namespace(
        rounds=ROUNDS,
        duration=run.opts.duration,
        warmup=run.opts.warmup,
        concurrency=conc,
        workers=1,
        wrk_threads=run.opts.wrk_threads,
        in_process_rounds=100,
    )


def scenario(run: Run) -> None:
    """Measure both comparisons; add their rows and a note with the ratios to ``run``."""
    conc = max(run.opts.concurrency)
    rows = metrics_cost.requests(run.stack, run.fixtures)
    say(f"token x1 and x2 (one worker each) through the proxy, {ROUNDS} rounds, c={conc}")
    figures = _measure_scaling(run, rows, conc)
    say(f"metrics on and off, {ROUNDS} fresh pairs of token services")
    opts = _metrics_opts(run, conc)
    checks = metrics_rounds.measure(run.stack, rows, opts)
    for row in rows:
        metrics_cost.in_process(run.stack, row, opts.in_process_rounds)
    wrapper = metrics_cost.wrapper_alone()
    notes = ["", f"replicas and metrics (issue 22), wrk -c{conc}, medians of {ROUNDS} rounds:"]
    for figure in figures:
        one, two = statistics.median(figure.one), statistics.median(figure.two)
        for count, rate in ((1, one), (2, two)):
            label = f"{figure.key}, token x{count} via proxy"
            result = Result(f"{figure.key}_x{count}", label, conc, "req/s", rate=rate)
            run.results.append(result)
        errors = f" ({figure.errors} answers were not successes)" if figure.errors else ""
        notes.append(
            f"  {figure.key}: token x1 {one:,.0f}/s, x2 {two:,.0f}/s, x2/x1 = {two / one:.2f}"
            f"{errors}"
        )
    for row in rows:
        on, off = statistics.median(row.on), statistics.median(row.off)
        added = row.app["on"]["median"] - row.app["off"]["median"]
        service = statistics.median(row.off_cpu)
        verdict = "met" if 1 - on / off < metrics_cost.BOUND else "NOT met"
        notes.append(
            f"  {row.key} metrics on/off at the port: {on:,.0f} / {off:,.0f} req/s, "
            f"cost {1 - on / off:.1%} ({verdict}); in process +{added:.1f} µs of "
            f"{service:.0f} µs service CPU per request = {added / service:.1%}"
        )
    added = wrapper["added_us"]
    shares = ", ".join(f"{row.key} {added / statistics.median(row.off_cpu):.1%}" for row in rows)
    notes.append(
        f"  the wrapper alone (an app that does nothing, {wrapper['off_us']:.2f} µs bare): "
        f"+{added:.2f} µs per request = of the service CPU per request: {shares}; "
        f"the tallies' write once a second: {wrapper['flush_us']:.0f} µs"
    )
    notes.append(
        f"  the 'on' service counted {checks.counted:,.0f} token requests; the 'off' one "
        f"answers /metrics {checks.off_status}"
    )
    run.notes += notes
