"""``python -m tests.chaos``: the chaos run (``make chaos``). See :mod:`tests.chaos`."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import records as bench_records
from tests.chaos import faults, flows, invariants, keys_fault, report
from tests.chaos.deps import OwnPostgres, OwnRedis
from tests.chaos.load import Load, LoadPlan
from tests.harness import infra, records
from tests.harness.nats_server import NatsServer
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack, new_stack, remove_stack, start_stack

FAULTS: list[tuple[str, Callable[[faults.Context], faults.Window], float]] = [
    # name, injector, seconds to wait for the outbox to drain before counting lost events
    ("1 PostgreSQL stopped 10 s", faults.postgres_down, 25),
    ("2 Redis stopped 10 s", faults.redis_down, 25),
    ("3 NATS stopped 30 s", faults.nats_down, 25),
    ("4 dispatcher SIGKILL mid fan-out", faults.dispatcher_killed, 60),
    ("5 token worker SIGKILL", faults.worker_killed, 25),
    ("6 receivers silent / 6 s late", faults.receivers_stall, 25),
    ("7 keys read-only / unreadable", keys_fault.keys_at_start, 5),
]
LIMITS = {
    "SVC_TOKEN_PER_IP": "10000000",  # the whole load comes from 127.0.0.1
    "SVC_CHALLENGE_PER_IP": "10000000",
    "SVC_AUTH_FAIL_PER_IP": "10000000",
    "SVC_LOG_LEVEL": "WARNING",
}


def say(message: str) -> None:
    print(f"chaos: {message}", file=sys.stderr, flush=True)


def run_fault(
    ctx: faults.Context, name: str, inject: Callable[[faults.Context], faults.Window],
    drain: float,
) -> report.Row:  # fmt: skip
    stack, load = ctx.stack, ctx.load
    since_id = invariants.last_outbox_id(stack)
    revoked_before = invariants.revoked_families(stack, load.chains)
    half_before = set(invariants.half_ended(stack, load.signed_in))
    load.paused.clear()
    say(f"fault {name}")
    window = inject(ctx)
    load.settle(20)
    row = report.fill(
        report.Row(name),
        (o for o in load.since(window.started) if o.started <= window.ended),
    )
    row.recovery, row.note, row.broken = window.recovery, window.note, window.broken
    row.health_during, row.health_after = window.health_during, window.health_after
    row.events_lost = invariants.events_lost(stack, since_id, drain)
    row.wrongly_revoked = invariants.revoked_families(stack, load.chains) - revoked_before
    row.half_ended = len(set(invariants.half_ended(stack, load.signed_in)) - half_before)
    say(f"  {report.cells(row)}")
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make chaos")
    parser.add_argument("--only", type=int, nargs="*", help="fault numbers to run (1-7)")
    opts = parser.parse_args(argv)
    started = time.monotonic()
    base = Path(tempfile.mkdtemp(prefix="idp-chaos-"))
    base.chmod(0o755)
    say(f"work folder {base}")
    pg, redis, nats = OwnPostgres(base), OwnRedis(base), NatsServer(base / "nats" / "store")
    rows: list[report.Row] = []
    try:
        pg.init()
        redis.start()
        nats.start()
        infra.PG_ADMIN_URL, infra.REDIS_URL, infra.NATS_URL = pg.admin_url, redis.url, nats.url
        rows = run_on_stack(base, pg, redis, nats, opts.only)
    finally:
        nats.stop()
        redis.stop()
        pg.stop()
        for folder in ("pg", "redis", "nats"):  # the logs of the stack stay
            shutil.rmtree(base / folder, ignore_errors=True)
    table = report.markdown(rows)
    (base / "chaos-report.md").write_text(table)
    print()
    print(report.text_table(rows))
    print(f"Markdown table: {base / 'chaos-report.md'}")
    failing = [row.fault for row in rows if row.breaks]
    verdict = f"FAILED: {', '.join(failing)}" if failing else "every row within its bounds"
    print(f"wall time {time.monotonic() - started:.0f} s; {verdict}")
    return 1 if failing or not rows else 0


def open_proxy_limits(stack: Stack) -> None:
    """The proxy again, without its per-address request rates: the whole load comes from
    127.0.0.1, where real clients come from many addresses, and its 429s would hide what
    the faults do. The services' own limits are opened the same way (LIMITS)."""
    old = next(p for p in stack.processes if p.name == "proxy")
    old.stop()
    stack.processes.remove(old)
    rates = ("--signin-rate", "10000r/s", "--authorize-rate", "10000r/s")
    stack.wait_until_up(stack.start_proxy(port=stack.proxy_port, extra_args=rates), "/console/")


def run_on_stack(
    base: Path, pg: OwnPostgres, redis: OwnRedis, nats: NatsServer, only: list[int] | None
) -> list[report.Row]:
    stack = new_stack(base)
    stack.env.update(LIMITS)
    rows = []
    try:
        say(f"starting the stack (run {stack.run_id}), token service with 2 workers")
        start_stack(stack, workers={"token": 2})
        open_proxy_limits(stack)
        with Receiver() as prompt, Receiver(hang=True) as hang, Receiver(delay=6) as slow:
            say("creating clients, people, sessions and refresh tokens")
            fixtures = bench_records.create_fixtures(stack, users=2, sessions=4)

            def app(url: str) -> records.TestClient:
                return records.create_client(stack, skip_consent=True, backchannel_logout_uri=url)

            cookies = [s.cookie for s in fixtures.sessions]
            plan = LoadPlan(
                base_url=stack.proxy_url,
                client=fixtures.client,
                api_scope=bench_records.API_SCOPE,
                cookies=cookies,
                refresh_tokens=infra.run(
                    flows.first_refresh_tokens(stack.proxy_url, fixtures.client, cookies, 24)
                ),
                people=[records.create_user(stack) for _ in range(3)],
                first_app=app(prompt.url_for("/first")),
                other_apps=[app(prompt.url_for("/second"))],
            )
            load = Load(plan)
            ctx = faults.Context(stack, pg, redis, nats, load, app(hang.url),
                                 app(slow.url_for("/slow")), hang, slow)  # fmt: skip
            load.start()
            say("warming up")
            time.sleep(8)
            for number, (name, inject, drain) in enumerate(FAULTS, start=1):
                if only and number not in only:
                    continue
                rows.append(run_fault(ctx, name, inject, drain))
            load.stop()
    finally:
        say("removing the stack")
        remove_stack(stack)
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
