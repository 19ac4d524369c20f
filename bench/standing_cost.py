"""What checking that a token still stands costs: ``bash bench/run.sh --standing [--before
DIR]`` (``make bench-standing``; ``make bench`` runs it too, with fewer rounds).

Userinfo, introspection and the bearer guard of ``/entity/*`` check that a token still
stands: not revoked, its browser session not ended, its person and client still there
(``idp_common.web.token_standing``). This measures those three reads on this tree
("after") against a checkout of the code before the check ("before", ``--before DIR``:
``git worktree add ../before 815a817 && (cd ../before && uv sync --frozen)``), in one run:

- one isolated stack from this tree (the test harness: database migrated to this tree's
  head, keys, Redis and NATS prefixes), its records (``bench/standing_records.py``): a
  confidential application and a person with two tokens from real code flows in live
  browser sessions, one of whose sessions is ended;
- in each of ``--rounds`` rounds, a fresh pair of each measured service (token, entity),
  one from each tree, on the stack's settings (``bench/standing_services.py``), started in
  an order that alternates, one ``PYTHONHASHSEED`` per pair, each checked to run its own
  tree's code (``/proc``, an import print, and the ended session's token: refused after,
  answered before);
- rows, with wrk at the service port (no proxy), one service at a time, the order of the
  two alternating from round to round (``bench/standing_rounds.py``):
  - ``userinfo``: GET /oauth2/userinfo, Bearer (2xx with ``"sub"``);
  - ``introspection``: POST /oauth2/introspect of that token by its application,
    client_secret_basic (2xx with ``"active":true``);
  - ``entity profile``: GET /entity/profile with that token (``idp:account:read``; 2xx
    with ``"email"``);
  each with the rate, the CPU the service (master and workers, from ``/proc``) spent per
  answered request, and the stack database's transactions per request.

Prints every round, the medians and after ÷ before of the CPU per request, against the
bound: within 5 %. The CPU per request is the figure to read on a shared machine (the rate
follows the neighbours' load). Without ``--before`` it says how to make one and measures
this tree alone.
"""

from __future__ import annotations

import argparse
import sys

from bench.isolated import bench_stack, remove_bench_stack
from bench.measure import FORM, WrkRequest, say
from bench.standing_records import Tokens, create_tokens
from bench.standing_report import report
from bench.standing_rounds import Measuring, Row, run_round
from bench.standing_services import AFTER, BEFORE, Checkout
from bench.standing_transactions import TransactionCounter, idle_baseline
from tests.harness.stack import start_stack

ROWS = ("userinfo", "introspection", "entity-profile")
MAKE_BEFORE = "git worktree add ../before 815a817 && (cd ../before && uv sync --frozen)"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/run.sh --standing", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--before",
        help="a checkout of the code to compare with, its environment synced "
        f"(`{MAKE_BEFORE}`); without it this tree is measured alone",
    )
    parser.add_argument("--rounds", type=int, default=6, help="fresh services each")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured per run")
    parser.add_argument("--warmup", type=float, default=1.5, help="seconds of warm-up per run")
    parser.add_argument("--concurrency", default="16,64", help="comma-separated levels")
    parser.add_argument("--workers", type=int, default=1, help="Granian workers per service")
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument(
        "--settle",
        type=float,
        default=11.0,
        help="seconds of quiet before reading PostgreSQL's transaction count (an idle "
        "backend reports within 10 s)",
    )
    parser.add_argument(
        "--max-rounds",
        type=int,
        help="rounds in all while a row has fewer than --rounds without errors "
        "(default: twice --rounds)",
    )
    parser.add_argument(
        "--rows", default=",".join(ROWS), help="comma-separated: " + ", ".join(ROWS)
    )
    opts = parser.parse_args(argv)
    opts.concurrency = [int(x) for x in opts.concurrency.split(",") if x]
    opts.rows = [x for x in opts.rows.split(",") if x]
    opts.max_rounds = opts.max_rounds or 2 * opts.rounds
    if unknown := set(opts.rows) - set(ROWS):
        parser.error(f"unknown row(s): {', '.join(sorted(unknown))}")
    return opts


def rows_of(tokens: Tokens, names: list[str]) -> list[Row]:
    bearer = {"Authorization": f"Bearer {tokens.standing}"}
    rows = [
        Row("userinfo", "token", WrkRequest("/oauth2/userinfo", headers=bearer, expect='"sub"')),
        Row(
            "introspection",
            "token",
            WrkRequest(
                "/oauth2/introspect",
                "POST",
                {"Authorization": tokens.basic, "Content-Type": FORM},
                f"token={tokens.standing}&token_type_hint=access_token",
                '"active":true',
            ),
        ),
        Row(
            "entity-profile",
            "entity",
            WrkRequest("/entity/profile", headers=bearer, expect='"email"'),
        ),
    ]
    return [row for row in rows if row.key in names]


def run_rounds(measuring: Measuring, rows: list[Row], compared: dict[str, Checkout]) -> None:
    """``--rounds`` rounds of every row, then more rounds of the rows with fewer rounds
    without errors than that (the machine's PostgreSQL is shared and at times full: the
    profile read then answers 503), up to ``--max-rounds`` rounds in all."""
    opts = measuring.opts
    number = 0
    while number < opts.max_rounds:
        if number < opts.rounds:
            todo = rows
        else:
            todo = [row for row in rows if row.clean_count() < opts.rounds]
            if not todo:
                return
            say(f"  another round for {', '.join(row.key for row in todo)} (rounds with errors)")
        number += 1
        run_round(measuring, todo, compared, number)


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    checkouts = {AFTER: Checkout.this_tree()}
    if opts.before:
        checkouts[BEFORE] = Checkout.before(opts.before)
    else:
        print(
            "no --before: measuring this tree alone. To compare with the code before the "
            f"standing check: {MAKE_BEFORE}, then bash bench/run.sh --standing --before "
            "../before",
            file=sys.stderr,
        )
    sides = [BEFORE, AFTER] if BEFORE in checkouts else [AFTER]
    # The measured token outlives the run.
    prepared = bench_stack("idp-bench-standing-", {"SVC_ACCESS_TOKEN_TTL": "14400"})
    if prepared is None:
        return 2
    base, stack = prepared
    try:
        for side in sides:
            found = checkouts[side].imports(stack.env)
            say(f"{side}: {checkouts[side].python} imports " + ", ".join(found.values()))
        say(f"starting an isolated stack (run {stack.run_id}) in {base}")
        start_stack(stack)
        tokens = create_tokens(stack)
        rows = rows_of(tokens, opts.rows)
        counter = TransactionCounter(stack.db_name)
        try:
            say(f"the stack's background: {opts.settle * 3:.0f} s with nothing measured")
            baseline = idle_baseline(counter, opts.settle)
            measuring = Measuring(stack, counter, baseline, opts, tokens.ended)
            compared = " and ".join(sides) + " alternating" if len(sides) == 2 else "this tree"
            say(f"measuring: {opts.rounds} rounds, fresh services each, {compared}")
            run_rounds(measuring, rows, {side: checkouts[side] for side in sides})
        finally:
            counter.close()
        commits = {side: checkouts[side].commit() for side in sides}
        report(rows, sides, opts, baseline, commits)
        return 0
    finally:
        remove_bench_stack(base, stack)


if __name__ == "__main__":
    sys.exit(main())
