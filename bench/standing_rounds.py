"""The rounds of ``bench/standing_cost.py``: in each, a fresh "before" and "after" service
of each measured service, every row measured with wrk on both, one service at a time, and
per row and service the rate, the service's CPU per answered request and the PostgreSQL
transactions per request.

Transactions are the stack database's ``xact_commit + xact_rollback`` in
``pg_stat_database`` (asyncpg's statements outside a transaction count one each). A backend
reports its counts at most once a second while busy and, once idle, within
``PGSTAT_IDLE_INTERVAL`` (10 s, PostgreSQL 15+), so the counter is read only after the
database has been left alone for ``--settle`` seconds (11): before a round's first row and
after each row's runs on one service. The count covers the row's warm-ups too, and is
divided by every answer of them; the readings themselves run in the ``postgres`` database
and do not count.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass, field

from bench.cpu import Meter
from bench.measure import Result, WrkRequest, say, wrk_row
from bench.metrics_rounds import ServiceMeter
from bench.standing_services import AFTER, BEFORE, Checkout, ended_token_status
from bench.standing_transactions import Baseline, TransactionCounter
from tests.harness.process import Process
from tests.harness.stack import Stack

#: Tries, a second apart, of the check that tells the sides apart while a service answers 5xx.
CHECK_ATTEMPTS = 60


@dataclass
class Cell:
    """One row at one concurrency: per side, the rate and the µs of service CPU per
    answered request of every round."""

    rate: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    p99: dict[str, list[float]] = field(default_factory=dict)
    other_cpu: dict[str, list[float]] = field(default_factory=dict)

    def add(self, side: str, result: Result, cpu_us: float) -> None:
        self.rate.setdefault(side, []).append(result.rate)
        self.cpu.setdefault(side, []).append(cpu_us)
        self.p99.setdefault(side, []).append(result.p99 or 0.0)
        self.other_cpu.setdefault(side, []).append(result.other_cpu)


@dataclass
class Row:
    key: str
    service: str  # the service it is measured on: "token" or "entity"
    request: WrkRequest
    cells: dict[int, Cell] = field(default_factory=dict)
    #: Per side, PostgreSQL transactions per answered request of every round, as read and
    #: less the stack's background rate over the same seconds.
    xact: dict[str, list[float]] = field(default_factory=dict)
    xact_net: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, Counter[str]] = field(default_factory=dict)
    samples: dict[str, str] = field(default_factory=dict)
    answered: dict[str, int] = field(default_factory=dict)

    #: Answers that were not successes in each round (both sides, warm-ups included).
    round_errors: list[int] = field(default_factory=list)

    def error_total(self) -> int:
        return sum(sum(errors.values()) for errors in self.errors.values())

    def clean_rounds(self) -> list[int]:
        """The rounds (0-based) in which every answer of the row was a success; every
        round when none was."""
        clean = [i for i, errors in enumerate(self.round_errors) if not errors]
        return clean or list(range(len(self.round_errors)))

    def clean_count(self) -> int:
        return sum(1 for errors in self.round_errors if not errors)

    def note(self, side: str, result: Result) -> None:
        self.errors.setdefault(side, Counter()).update(result.errors)
        for kind, sample in result.samples.items():
            self.samples.setdefault(f"{side} {kind}", sample)
        self.answered[side] = self.answered.get(side, 0) + result.ok + result.error_count


@dataclass
class Pairs:
    """The services of one round: ``services[side][name]``."""

    services: dict[str, dict[str, Process]]

    @property
    def processes(self) -> list[Process]:
        return [p for by_name in self.services.values() for p in by_name.values()]


@dataclass
class Measuring:
    """What every round uses: the stack, its transaction counter and background rate, the
    options, and the ended session's token that tells the sides apart."""

    stack: Stack
    counter: TransactionCounter
    baseline: Baseline
    opts: argparse.Namespace
    ended_token: str


def order_of(number: int, sides: list[str]) -> list[str]:
    """The sides in the order of round ``number``: alternating."""
    return list(sides) if number % 2 else list(reversed(sides))


def start_pairs(
    stack: Stack,
    checkouts: dict[str, Checkout],
    names: list[str],
    number: int,
    workers: int,
) -> Pairs:
    """A fresh service of each name on each side, started in the round's order, one hash
    seed per pair; each checked to run its own checkout's code."""
    sides = order_of(number, list(checkouts))
    services: dict[str, dict[str, Process]] = {side: {} for side in sides}
    for index, name in enumerate(names):
        seed = {"PYTHONHASHSEED": str(number * len(names) + index)}
        for side in sides:
            services[side][name] = checkouts[side].start(stack, name, seed, workers)
    pairs = Pairs(services)
    try:
        for side in sides:
            for process in services[side].values():
                stack.wait_until_up(process)
                checkouts[side].check_process(process)
    except BaseException:
        stop_pairs(stack, pairs)
        raise
    return pairs


def stop_pairs(stack: Stack, pairs: Pairs) -> None:
    for process in pairs.processes:
        process.stop()
        if process in stack.processes:
            stack.processes.remove(process)


#: What each side answers the ended session's token with, where: this tree refuses it.
ENDED_PATHS = {"token": "/oauth2/userinfo", "entity": "/entity/profile"}
EXPECTED_ENDED = {BEFORE: 200, AFTER: 401}


def check_sides(pairs: Pairs, ended_token: str) -> None:
    """The ended session's token tells the two codes apart: SystemExit when a service
    answers it as the other side's code would."""
    for side, by_name in pairs.services.items():
        for name, process in by_name.items():
            status = ended_token_status(process, ENDED_PATHS[name], ended_token)
            for _ in range(CHECK_ATTEMPTS):  # 503: the shared PostgreSQL is full for now
                if status < 500:
                    break
                time.sleep(1.0)
                status = ended_token_status(process, ENDED_PATHS[name], ended_token)
            if status != EXPECTED_ENDED[side]:
                raise SystemExit(
                    f"the {side} {name} service answered {status} to an ended session's "
                    f"token (expected {EXPECTED_ENDED[side]}): it does not run the {side} code"
                )


def _wrk_opts(opts: argparse.Namespace, seconds: float) -> argparse.Namespace:
    return argparse.Namespace(warmup=0.0, duration=seconds, wrk_threads=opts.wrk_threads)


def measure_side(
    stack: Stack, row: Row, side: str, process: Process, opts: argparse.Namespace
) -> int:
    """Every concurrency of ``row`` on one service: a warm-up, then the measured run with
    the service's CPU. Returns the answers of all of them (warm-ups included)."""
    answers = 0
    for conc in opts.concurrency:
        roots = [p.popen.pid for p in stack.processes]
        if opts.warmup > 0:
            warm = wrk_row(
                row.key,
                row.key,
                process.url,
                row.request,
                conc,
                _wrk_opts(opts, opts.warmup),
                Meter(roots, stack.db_name),
            )
            row.note(side, warm)
            answers += warm.ok + warm.error_count
        meter = ServiceMeter(roots, stack.db_name, process.popen.pid)
        result = wrk_row(
            row.key, row.key, process.url, row.request, conc, _wrk_opts(opts, opts.duration), meter
        )
        row.note(side, result)
        measured = result.ok + result.error_count
        answers += measured
        cpu_us = meter.service_cpu / max(1, measured) * 1e6
        row.cells.setdefault(conc, Cell()).add(side, result, cpu_us)
    return answers


def run_round(
    measuring: Measuring, rows: list[Row], checkouts: dict[str, Checkout], number: int
) -> bool:
    """Round ``number`` of ``rows``; False when its services did not come up (nothing
    measured)."""
    stack, counter, opts = measuring.stack, measuring.counter, measuring.opts
    names = list(dict.fromkeys(row.service for row in rows))
    try:
        pairs = start_pairs(stack, checkouts, names, number, opts.workers)
    except RuntimeError as exc:
        say(f"  round {number}: services did not come up, skipped ({str(exc)[:300]})")
        return False
    try:
        check_sides(pairs, measuring.ended_token)
        count, since = counter.settled(opts.settle)
        for row in rows:
            errors_before = row.error_total()
            for side in order_of(number, list(checkouts)):
                answers = measure_side(stack, row, side, pairs.services[side][row.service], opts)
                after, now = counter.settled(opts.settle)
                background = measuring.baseline.per_second * (now - since)
                row.xact.setdefault(side, []).append((after - count) / max(1, answers))
                net = (after - count - background) / max(1, answers)
                row.xact_net.setdefault(side, []).append(net)
                count, since = after, now
            row.round_errors.append(row.error_total() - errors_before)
            say(f"  round {number} {row.key}: " + summary(row))
    finally:
        stop_pairs(stack, pairs)
    return True


def summary(row: Row) -> str:
    parts = []
    for conc, cell in row.cells.items():
        sides = ", ".join(
            f"{side} {cell.rate[side][-1]:,.0f}/s {cell.cpu[side][-1]:.0f} µs" for side in cell.rate
        )
        parts.append(f"c{conc} {sides}")
    xact = ", ".join(f"{side} {values[-1]:.4f}" for side, values in row.xact_net.items())
    return "; ".join(parts) + f"; xact/req {xact}"
