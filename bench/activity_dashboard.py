"""Benchmark of the activity dashboard's query at 10 million audit rows (issue #28
acceptance 3): ``bash bench/run.sh --activity`` (``make bench-activity``; ``make bench``
runs it after the endpoint table).

- A database of its own (``idp_bench_activity_<run>``, migrated to head, dropped at the end
  unless ``--keep``), filled inside PostgreSQL: ``ROWS`` audit rows (default 10,000,000)
  spread evenly over the last 30 days in time order, with a realistic mix of actions
  (sign-ins by method, refusals, throttles, token summaries, back-channel deliveries and
  ~20 % other writes),
  made by ``generate_series`` in parallel statements, the table's indexes built after the
  rows (as a restore does), then ``VACUUM ANALYZE``.
- What ``GET /admin/activity`` runs (``admin_service.controllers.activity``), in this
  process against that database and the local Redis: the roll-up of closed hours, the read
  of rolled hours plus the live hours from the audit log, the assembly, the live-session
  count. Measured: the first (cold) request of each range on an empty roll-up table, then
  ``--calls`` warm requests per range (median and p95). HTTP and the token check are not in
  the figures (the admin list benchmark measures those; they are the same for every route).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Final

import asyncpg
from redis.asyncio import Redis
from sqlalchemy import text

from bench.measure import percentile, say
from idp_common.state.sessions import SessionStore
from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.migrate import upgrade
from idp_common.storage.repos.activity import (
    _LIVE,  # the live statement, timed alone over two full hours
    RANGES,
    activity_rows,
    assemble,
    hour_starts,
)
from tests.harness import infra

TARGET_MS: Final = 200.0
_TRUNCATE: Final = text("TRUNCATE activity_hours")
DAYS: Final = 30

# One row per generated number, in time order as a live log is written (row ``g`` of ``$3``
# is ``$3 - g`` steps of 30 days / ``$3`` old, so an hour's rows lie together in the heap,
# as they do in production): ``r`` picks the action, ``q`` the detail's variant. Shares
# (cumulative): sign-ins 35 %, wrong passwords/faces/passkeys 8 %, wrong codes 2 %,
# throttles 1.5 %, token summaries 30 %, back-channel deliveries 5 %, other writes 18.5 %.
FILL_SQL: Final = """
INSERT INTO audit_events (occurred_at, action, actor, target_type, target, ip, status_code, detail)
SELECT now() - ($3::bigint - g + random()) * (interval '30 days' / $3::bigint),
  CASE WHEN r < 0.35 THEN 'login.succeeded'
       WHEN r < 0.43 THEN 'login.failed'
       WHEN r < 0.45 THEN 'totp.failed'
       WHEN r < 0.46 THEN 'login.throttled'
       WHEN r < 0.465 THEN 'second_factor.throttled'
       WHEN r < 0.765 THEN 'tokens.issued'
       WHEN r < 0.815 THEN 'POST backchannel_logout'
       WHEN r < 0.90 THEN 'consent.granted'
       WHEN r < 0.95 THEN 'password_reset.requested'
       WHEN r < 0.98 THEN 'user.update'
       ELSE 'client.update' END,
  md5(g::text), 'client', 'app-' || (g % 40), '198.18.' || (g % 250) || '.' || (g % 199),
  CASE WHEN r < 0.35 THEN 200 WHEN r < 0.45 THEN 401 WHEN r < 0.465 THEN 429 ELSE 200 END,
  CASE WHEN r < 0.35 THEN jsonb_build_object(
         'amr', CASE WHEN q < 0.6 THEN '["pwd"]'::jsonb
                     WHEN q < 0.85 THEN '["pwd", "otp", "mfa"]'::jsonb
                     WHEN q < 0.95 THEN '["hwk", "user", "mfa"]'::jsonb
                     ELSE '["face"]'::jsonb END,
         'acr', 'urn:idp:acr:1fa', 'sid', md5(g::text))
       WHEN r < 0.43 THEN CASE
         WHEN q < 0.8 THEN '{"reason": "password"}'::jsonb
         WHEN q < 0.9 THEN '{"reason": "face_mismatch", "method": "face"}'::jsonb
         ELSE '{"reason": "unknown_passkey", "method": "passkey"}'::jsonb END
       WHEN r < 0.45 THEN '{"failures": 1, "challenge_ended": false}'::jsonb
       WHEN r < 0.46 THEN '{"retry_after": 2}'::jsonb
       WHEN r < 0.465 THEN '{"retry_after": 30, "factor": "code"}'::jsonb
       WHEN r < 0.765 THEN jsonb_build_object(
         'grant', CASE WHEN q < 0.5 THEN 'client_credentials'
                       WHEN q < 0.8 THEN 'refresh_token'
                       WHEN q < 0.97 THEN 'authorization_code'
                       ELSE 'urn:ietf:params:oauth:grant-type:device_code' END,
         'clientId', 'app-' || (g % 40), 'count', 1 + (g % 50))
       WHEN r < 0.815 THEN jsonb_build_object(
         'uri', 'https://app.example/logout',
         'status_code', CASE WHEN q < 0.95 THEN 200 ELSE 503 END,
         'delivered', q < 0.95, 'elapsed_ms', 12)
       ELSE '{"scopes": ["openid"]}'::jsonb END
FROM (SELECT g, random() AS r, random() AS q FROM generate_series($1::bigint, $2::bigint) AS g) AS s
"""


async def _drop_audit_indexes(conn: asyncpg.Connection) -> list[str]:
    """The audit table's indexes but its key, dropped; their definitions to build again."""
    rows = await conn.fetch(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'audit_events' "
        "AND indexname <> 'pk_audit_events'"
    )
    for row in rows:
        await conn.execute(f'DROP INDEX "{row["indexname"]}"')
    return [row["indexdef"] for row in rows]


async def fill(dsn: str, rows: int, parts: int) -> float:
    started = time.perf_counter()
    conn = await asyncpg.connect(dsn)
    try:
        definitions = await _drop_audit_indexes(conn)
        step = -(-rows // parts)

        async def part(first: int) -> None:
            one = await asyncpg.connect(dsn)
            try:
                await one.execute(FILL_SQL, first, min(first + step - 1, rows), rows)
            finally:
                await one.close()

        await asyncio.gather(*(part(1 + i * step) for i in range(parts)))
        say(f"{rows:,} rows in {time.perf_counter() - started:.0f} s; building the indexes")
        await conn.execute("SET maintenance_work_mem = '512MB'")
        for definition in definitions:
            await conn.execute(definition)
        await conn.execute("VACUUM ANALYZE audit_events")
    finally:
        await conn.close()
    return time.perf_counter() - started


class Endpoint:
    """What the controller runs, with the same sessions, Redis store and order."""

    def __init__(self, database_url: str, redis: Redis, prefix: str) -> None:
        self.engine = create_engine(database_url)
        self.sessions = create_session_factory(self.engine)
        self.store = SessionStore(redis, prefix)

    async def call(self, range_name: str) -> Any:
        hours = RANGES[range_name]
        now = datetime.now(UTC)
        async with self.sessions.begin() as session:
            rows = await activity_rows(session, now, hours)
        live = await self.store.count_live(now.timestamp())
        return assemble(range_name, hour_starts(now, hours), rows, active_sessions=live, now=now)


async def timed(work: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await work()
    return (time.perf_counter() - started) * 1000


async def live_two_hours(endpoint: Endpoint, calls: int) -> tuple[float, float | None]:
    now = datetime.now(UTC)
    wanted = hour_starts(now, RANGES["7d"])
    params = {"origin": wanted[0], "start": wanted[-3], "end": wanted[-1]}
    rows = 0

    async def once() -> None:
        nonlocal rows
        async with endpoint.sessions() as session:
            rows = len((await session.execute(_LIVE, params)).all())

    samples = [await timed(once) for _ in range(calls)]
    return statistics.median(samples), percentile(samples, 95)


async def measure(database_url: str, calls: int) -> dict[str, Any]:
    redis = Redis.from_url(infra.REDIS_URL)
    prefix = f"idp_bench_activity_{infra.run_id()}:"
    endpoint = Endpoint(database_url, redis, prefix)
    for n in range(200):  # some live sessions to count
        await endpoint.store.create_session(
            user_id=f"bench-{n}", auth_time=0, amr=["pwd"], acr="", ip=None, user_agent=None
        )
    figures: dict[str, Any] = {}
    try:
        for name in RANGES:
            async with endpoint.sessions.begin() as session:
                await session.execute(_TRUNCATE)
            figures[f"cold_{name}_ms"] = await timed(lambda n=name: endpoint.call(n))
        for name in RANGES:
            for _ in range(3):  # connections opened, plans cached
                await endpoint.call(name)
            samples = [await timed(lambda n=name: endpoint.call(n)) for _ in range(calls)]
            figures[f"warm_{name}_median_ms"] = statistics.median(samples)
            figures[f"warm_{name}_p95_ms"] = percentile(samples, 95)
        # The live part at its largest: two full hours not rolled (the previous hour stays
        # live for CLOSED_AFTER into the next); the warm requests above see the current
        # hour so far only.
        figures["live_2h_median_ms"], figures["live_2h_p95_ms"] = await live_two_hours(
            endpoint, calls
        )
        answer = await endpoint.call("7d")
        figures["signins_7d"] = sum(s.total for s in answer.signins)
        figures["tokens_7d"] = sum(s.total for s in answer.tokens)
        figures["active_sessions"] = answer.active_sessions
    finally:
        await endpoint.engine.dispose()
        await redis.delete(f"{prefix}sessions-live")
        keys = [k async for k in redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()
    return figures


def report(rows: int, fill_seconds: float, figures: dict[str, Any]) -> None:
    print()
    filled = f"filled in {fill_seconds:.0f} s"
    print(f"Activity dashboard at {rows:,} audit rows over {DAYS} days ({filled})")
    print(f"  {'request':<34}{'24h':>10}{'7d':>10}")
    cold = "first, roll-up table empty (ms)"
    print(f"  {cold:<34}{figures['cold_24h_ms']:>10.1f}{figures['cold_7d_ms']:>10.1f}")
    for label, key in (("warm median (ms)", "median"), ("warm p95 (ms)", "p95")):
        a, b = figures[f"warm_24h_{key}_ms"], figures[f"warm_7d_{key}_ms"]
        print(f"  {label:<34}{a:>10.1f}{b:>10.1f}")
    live = "live part, 2 full hours (ms)"
    print(
        f"  {live:<34}median {figures['live_2h_median_ms']:.1f}, "
        f"p95 {figures['live_2h_p95_ms']:.1f} (the worst live part, at hh:00-hh:02)"
    )
    worst = max(figures["warm_24h_p95_ms"], figures["warm_7d_p95_ms"])
    verdict = "met" if worst < TARGET_MS else "MISSED"
    print(f"  target: warm p95 under {TARGET_MS:.0f} ms: {verdict}")
    print(
        f"  (7d: {figures['signins_7d']:,} sign-in steps, {figures['tokens_7d']:,} tokens; "
        f"{figures['active_sessions']} live sessions counted)"
    )


async def main_async(args: argparse.Namespace) -> int:
    name = args.reuse or f"idp_bench_activity_{infra.run_id()}"
    database_url = infra.database_url(name)
    fill_seconds = 0.0
    if not args.reuse:
        say(f"database {name}: migrating")
        await infra.create_database(name)
    try:
        if not args.reuse:
            await upgrade(database_url)
            dsn = database_url.replace("postgresql+asyncpg://", "postgresql://")
            say(f"filling {args.rows:,} audit rows in {args.parts} statements")
            fill_seconds = await fill(dsn, args.rows, args.parts)
        say(f"measuring ({args.calls} warm calls per range)")
        figures = await measure(database_url, args.calls)
        report(args.rows, fill_seconds, figures)
        worst = max(figures["warm_24h_p95_ms"], figures["warm_7d_p95_ms"])
        return 0 if worst < TARGET_MS or not args.strict else 1
    finally:
        if args.keep or args.reuse:
            say(f"kept database {name} (measure again: --reuse {name}; drop it when done)")
        else:
            await infra.drop_database(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--parts", type=int, default=2, help="parallel fill statements")
    parser.add_argument("--calls", type=int, default=30, help="warm requests per range")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    parser.add_argument("--reuse", metavar="DATABASE", help="measure a kept database again")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    sys.exit(asyncio.run(main_async(parser.parse_args())))


if __name__ == "__main__":
    main()
