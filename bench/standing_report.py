"""The report of ``bench/standing_cost.py``: every round, the medians, after ÷ before of
the CPU per request against the bound, the database's transactions per request, and the
errors met."""

from __future__ import annotations

import argparse
import statistics

from bench.standing_rounds import Row
from bench.standing_services import AFTER, BEFORE
from bench.standing_transactions import Baseline

BOUND = 0.05  # CPU per request within 5 % of the code before the check


def _median(values: list[float] | None) -> float | None:
    return statistics.median(values) if values else None


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _pick(values: list[float], rounds: list[int]) -> list[float]:
    return [values[i] for i in rounds]


def report(
    rows: list[Row],
    sides: list[str],
    opts: argparse.Namespace,
    baseline: Baseline,
    commits: dict[str, str],
) -> None:
    named = ", ".join(f"{side} {commits[side]}" for side in sides)
    print(
        f"\nStanding check cost: {named}; token and entity services of {opts.workers} "
        f"Granian worker(s) each, wrk at the service port, {opts.rounds} rounds (fresh "
        f"services each) of {opts.warmup:g} s warm-up + {opts.duration:g} s per row, "
        "service and concurrency, the order of the sides alternating\n"
    )
    head = f"{'row':<16} {'conc':>4} {'round':>5}"
    for side in sides:
        head += f" {side + ' req/s':>13} {side + ' µs':>10}"
    if len(sides) == 2:
        head += f" {'cpu a/b':>8}"
    print(head + f" {'errors':>7}")
    for row in rows:
        for conc, cell in row.cells.items():
            for number, errors in enumerate(row.round_errors):
                line = f"{row.key:<16} {conc:>4} {number + 1:>5}"
                for side in sides:
                    line += f" {cell.rate[side][number]:>13,.0f} {cell.cpu[side][number]:>10.1f}"
                if len(sides) == 2:
                    ratio = cell.cpu[AFTER][number] / cell.cpu[BEFORE][number]
                    line += f" {ratio:>8.3f}"
                print(line + f" {errors:>7,}")
    print(
        "errors: answers of the row in that round, both sides and warm-ups included, that "
        "were not successes; the medians below leave such rounds out"
    )
    print_medians(rows, sides)
    print_transactions(rows, sides, baseline)
    print_errors(rows)


def print_medians(rows: list[Row], sides: list[str]) -> None:
    head = f"\n{'row':<16} {'conc':>4} {'rounds':>6}"
    for side in sides:
        head += f" {side + ' req/s':>13} {side + ' µs/req':>14} {side + ' p99':>11}"
    if len(sides) == 2:
        head += f" {'rate a/b':>8} {'cpu a/b':>8} {'paired':>7} {'bound ≤1.05':>11}"
    head += f" {'oth cpu':>7}"
    print(head + "   (medians over rounds; p99 in ms)")
    for row in rows:
        clean = row.clean_rounds()
        for conc, cell in row.cells.items():
            line = f"{row.key:<16} {conc:>4} {len(clean):>6}"
            rate = {side: statistics.median(_pick(cell.rate[side], clean)) for side in sides}
            cpu = {side: statistics.median(_pick(cell.cpu[side], clean)) for side in sides}
            for side in sides:
                p99 = statistics.median(_pick(cell.p99[side], clean))
                line += f" {rate[side]:>13,.0f} {cpu[side]:>14.1f} {p99:>11.1f}"
            if len(sides) == 2:
                ratio = cpu[AFTER] / cpu[BEFORE]
                paired = statistics.median(cell.cpu[AFTER][i] / cell.cpu[BEFORE][i] for i in clean)
                verdict = "met" if ratio <= 1 + BOUND else "NOT met"
                line += (
                    f" {rate[AFTER] / rate[BEFORE]:>8.3f} {ratio:>8.3f} {paired:>7.3f}"
                    f" {verdict:>11}"
                )
            other = max(max(_pick(cell.other_cpu[side], clean)) for side in sides)
            line += f" {other:>7.2f}"
            print(line)
    if len(sides) == 2:
        print(
            "cpu a/b = median after µs/req ÷ median before µs/req (the bound applies to it); "
            "paired: the median of the rounds' own after ÷ before; rate a/b likewise; "
            "'rounds': those without errors; 'oth cpu': the most cores other processes took "
            "during one run"
        )


def print_transactions(rows: list[Row], sides: list[str], baseline: Baseline) -> None:
    print(
        "\nPostgreSQL transactions per answered request: the stack database's xact_commit + "
        "xact_rollback across each row's runs on one service (warm-ups included), less the "
        f"stack's background ({baseline.per_second:.2f}/s with nothing measured) over the "
        "same seconds; median and highest over rounds, and the median as read"
    )
    head = f"{'row':<16}"
    for side in sides:
        head += f" {side + ' median':>14} {side + ' max':>11} {side + ' as read':>14}"
    print(head)
    for row in rows:
        line = f"{row.key:<16}"
        clean = row.clean_rounds()
        for side in sides:
            net = _pick(row.xact_net.get(side, []), clean)
            raw = _pick(row.xact.get(side, []), clean)
            line += (
                f" {_num(_median(net), '>14.4f')} {_num(max(net, default=None), '>11.4f')}"
                f" {_num(_median(raw), '>14.4f')}"
            )
        print(line)


def print_errors(rows: list[Row]) -> None:
    for row in rows:
        for side, errors in row.errors.items():
            if errors:
                kinds = ", ".join(f"{kind}: {count:,}" for kind, count in errors.items())
                print(f"  {row.key} {side}: answers that were not successes: {kinds}")
        for kind, sample in row.samples.items():
            print(f"    sample ({kind}): {sample[:200]!r}")
    answered = {
        row.key: ", ".join(f"{side} {count:,}" for side, count in row.answered.items())
        for row in rows
    }
    print(
        "answers checked (warm-ups included): "
        + "; ".join(f"{k}: {v}" for k, v in answered.items())
    )
