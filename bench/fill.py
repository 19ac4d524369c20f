"""Fill a migrated database (and Redis) with the data of a provider that has run for a while
(issue #24 item 5): ``--tokens`` refresh tokens (default 1,000,000) with the authorization
codes, browser sessions, password-reset tokens and audit rows that go with them.

    uv run --frozen python -m bench.fill --database-url postgresql://… --redis-prefix idp_x: \\
        --tokens 10000000

Shape (every figure is an option; the proportions follow ``--tokens`` = N):

- ``--clients`` (200) clients, 85 % confidential (with a secret), and ``--people``
  (100,000) people. Who holds tokens is skewed (Zipf): the busiest client holds about a
  fifth of the families; per million tokens the busiest person ~570 families, the median
  one ~2.5 (Zipf 0.5).
- Refresh tokens come in rotation families of 1 to 12 generations (geometric, mean ~2.8,
  spent + current): generation k+1 is issued 10 min to days after k (exponential, mean
  8 h), which spends k (``spent_at``). Families start over the last ``--days`` (45) in the
  order they are written, so the heap is in time order as a real table's is. Each token
  expires 30 days after it was issued: a family whose last token was issued more than 30
  days ago is wholly expired, so about a third of the rows are past expiry + the cleanup's
  hour (printed). 4 % of the families are revoked (every row: ``revoke_family``).
- N/10 authorization codes issued over the last 26 hours (60 s each, 92 % exchanged):
  a day of codes with the cleanup held back, nearly all of them past its margin.
- N/20 browser sessions in Redis under the prefix, as ``SessionStore.create_session``
  writes them (the session's JSON with its idle expiry, the person's index set) with one
  to three applications each (``session-apps:<sid>``).
- ``--people``/100 password-reset tokens over the last 7 days (30 min each).
- N/2 audit rows over the last 90 days (sign-ins, failures, logouts and their
  back-channel deliveries, consents, admin writes), in time order.

Rows go in with COPY (asyncpg ``copy_records_to_table``), in batches of ``--batch`` rows,
each its own transaction, into the real schema: every constraint, foreign key and index
stays in place and is checked and maintained as the rows arrive. ``--jobs`` processes write
the refresh tokens side by side. At the end ``VACUUM (ANALYZE)`` of the filled tables (what
autovacuum would have done on a live system). Rows/s and the time of each step are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import bisect
import itertools
import json
import multiprocessing
import random
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg
from redis.asyncio import Redis

DAY = 86400.0
HOUR = 3600.0
REFRESH_TTL = 30 * DAY
CODE_TTL = 60.0
RESET_TTL = 30 * 60.0
SESSION_IDLE = 24 * 3600
#: the cleanup's margin (idp_common.operations.cleanup.CLEANUP_MARGIN), for the printed shares
MARGIN = HOUR
REVOKED_SHARE = 0.04
MAX_GENERATIONS = 12
NEXT_GENERATION = 0.35  # geometric: P(a family stops after each generation)
MEAN_INTERVAL = 8 * HOUR
SCOPES = (
    "openid profile email offline_access",
    "openid offline_access",
    "openid email offline_access",
)
AUDIT_ACTIONS = (  # (action, status, weight)
    ("login.succeeded", 200, 38),
    ("login.failed", 401, 10),
    ("session.ended", 204, 14),
    ("POST backchannel_logout", 200, 14),
    ("consent.granted", 200, 8),
    ("token.grant_failed", 400, 6),
    ("PATCH /admin/users/{user_id}", 200, 4),
    ("token.client_auth_failed", 401, 3),
    ("password_reset.requested", 202, 2),
    ("POST /admin/clients", 201, 1),
)


@dataclass
class Shape:
    tokens: int = 1_000_000
    clients: int = 200
    people: int = 100_000
    days: float = 45.0
    codes: int | None = None  # default tokens / 10
    sessions: int | None = None  # default tokens / 20
    audit: int | None = None  # default tokens / 2
    resets: int | None = None  # default people / 100
    batch: int = 20_000
    jobs: int = 2
    seed: int = 24

    def __post_init__(self) -> None:
        self.codes = self.tokens // 10 if self.codes is None else self.codes
        self.sessions = self.tokens // 20 if self.sessions is None else self.sessions
        self.audit = self.tokens // 2 if self.audit is None else self.audit
        self.resets = self.people // 100 if self.resets is None else self.resets


@dataclass
class Step:
    name: str
    rows: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.rows / self.seconds if self.seconds else 0.0


@dataclass
class FillReport:
    shape: Shape
    steps: list[Step] = field(default_factory=list)
    expired_tokens: int = 0  # refresh tokens past expiry + margin at the fill's moment
    expired_codes: int = 0
    revoked_tokens: int = 0
    spent_tokens: int = 0
    families: int = 0
    seconds: float = 0.0

    def add(self, name: str, rows: int, seconds: float) -> None:
        step = Step(name, rows, seconds)
        self.steps.append(step)
        say(f"  {name}: {rows:,} in {seconds:,.1f} s ({step.rate:,.0f}/s)")

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["steps"] = [{**asdict(s), "rate": round(s.rate)} for s in self.steps]
        return out


def say(message: str) -> None:
    print(f"\033[1m==> {message}\033[0m", file=sys.stderr, flush=True)


# --- skewed choices -----------------------------------------------------------------------
def zipf_cumulative(n: int, s: float) -> list[float]:
    """Cumulative weights of ranks 1..n under Zipf(s), for ``random.choices``."""
    return list(itertools.accumulate(1.0 / (k**s) for k in range(1, n + 1)))


def pick(rng: random.Random, cumulative: list[float]) -> int:
    return bisect.bisect(cumulative, rng.random() * cumulative[-1])


def random_uuid(rng: random.Random) -> uuid.UUID:
    return uuid.UUID(int=rng.getrandbits(128))


def sid_of(rng: random.Random) -> str:
    """A value shaped like a session's sid: base64url of 32 bytes (SHA-256 of the id)."""
    return base64.urlsafe_b64encode(rng.randbytes(32)).rstrip(b"=").decode()


def at(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


# --- clients and people -------------------------------------------------------------------
CLIENT_COLUMNS = (
    "id", "client_id", "name", "type", "redirect_uris", "post_logout_redirect_uris",
    "grant_types", "skip_consent", "created_at", "updated_at",
)  # fmt: skip
USER_COLUMNS = (
    "id", "email", "username", "display_name", "email_verified", "created_at", "updated_at",
)  # fmt: skip


def client_rows(shape: Shape, tag: str, now: float) -> tuple[list[tuple[Any, ...]], list[Any]]:
    rng = random.Random(shape.seed)
    clients, secrets = [], []
    for i in range(shape.clients):
        pk = random_uuid(rng)
        confidential = rng.random() < 0.85
        grants = ["authorization_code", "refresh_token"]
        if confidential and rng.random() < 0.3:
            grants.append("client_credentials")
        made = at(now - rng.uniform(60, 400) * DAY)
        clients.append(
            (
                pk,
                f"fill-{tag}-{i:04d}",
                f"Application {i}",
                "confidential" if confidential else "public",
                [f"https://app{i}.{tag}.example/callback"],
                [f"https://app{i}.{tag}.example/"],
                grants,
                rng.random() < 0.2,
                made,
                made,
            )
        )
        if confidential:
            secrets.append((random_uuid(rng), pk, rng.randbytes(32), made))
    return clients, secrets


def user_rows(shape: Shape, tag: str, now: float) -> Iterator[tuple[Any, ...]]:
    rng = random.Random(shape.seed + 1)
    for i in range(shape.people):
        made = at(now - rng.uniform(1, 400) * DAY)
        yield (
            random_uuid(rng),
            f"p{i}.{tag}@fill.example",
            f"p{i}_{tag}",
            f"Person {i}",
            rng.random() < 0.9,
            made,
            made,
        )


# --- refresh tokens -----------------------------------------------------------------------
TOKEN_COLUMNS = (
    "id", "token_digest", "family_id", "grant_id", "parent_id", "client_pk", "user_id",
    "scope", "session_sid", "auth_time", "acr", "amr", "issued_at", "expires_at", "spent_at",
    "revoked_at",
)  # fmt: skip


@dataclass
class Holders:
    """Who holds tokens: the filled clients and people, with their skewed weights."""

    clients: list[uuid.UUID]
    people: list[uuid.UUID]
    client_weights: list[float] = field(default_factory=list)
    people_weights: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.client_weights = zipf_cumulative(len(self.clients), 1.1)
        self.people_weights = zipf_cumulative(len(self.people), 0.5)


@dataclass
class TokenTally:
    rows: int = 0
    families: int = 0
    expired: int = 0
    revoked: int = 0
    spent: int = 0


def family_rows(
    rng: random.Random, holders: Holders, start: float, now: float, tally: TokenTally
) -> list[tuple[Any, ...]]:
    """The rows of one rotation family started at ``start``, oldest first."""
    family, grant = random_uuid(rng), random_uuid(rng)
    client = holders.clients[pick(rng, holders.client_weights)]
    person = holders.people[pick(rng, holders.people_weights)]
    scope, sid = SCOPES[rng.randrange(len(SCOPES))], sid_of(rng)
    acr, amr = (
        ("urn:idp:acr:2fa", ["pwd", "otp"]) if rng.random() < 0.15 else ("urn:idp:acr:1fa", ["pwd"])
    )
    issued = [start]
    while len(issued) < MAX_GENERATIONS and rng.random() > NEXT_GENERATION:
        step = max(600.0, rng.expovariate(1 / MEAN_INTERVAL))
        if issued[-1] + step >= now:
            break
        issued.append(issued[-1] + step)
    revoked = None
    if rng.random() < REVOKED_SHARE:
        revoked = at(min(now - 1.0, issued[-1] + rng.uniform(0, REFRESH_TTL)))
    auth_time, rows, parent = at(start - rng.uniform(1, 30)), [], None
    for k, moment in enumerate(issued):
        row_id = random_uuid(rng)
        spent = at(issued[k + 1]) if k + 1 < len(issued) else None
        rows.append(
            (
                row_id, rng.randbytes(32), family, grant, parent, client, person, scope, sid,
                auth_time, acr, amr, at(moment), at(moment + REFRESH_TTL), spent, revoked,
            )
        )  # fmt: skip
        parent = row_id
        tally.expired += moment + REFRESH_TTL < now - MARGIN
        tally.spent += spent is not None
    tally.rows += len(rows)
    tally.families += 1
    tally.revoked += len(rows) if revoked else 0
    return rows


async def _copy(
    conn: asyncpg.Connection, table: str, columns: Sequence[str], rows: list[Any]
) -> None:
    await conn.copy_records_to_table(table, records=rows, columns=list(columns))


async def _copy_tokens(
    dsn: str, shape: Shape, job: int, quota: int, holders: Holders, now: float
) -> TokenTally:
    """Job ``job``'s share: ``quota`` rows, its families' starts walking the timeline as
    its rows fill up (so the heap is in time order and the last families start now)."""
    rng = random.Random(shape.seed * 1000 + job)
    span, first, tally = shape.days * DAY, now - shape.days * DAY, TokenTally()
    conn = await asyncpg.connect(dsn)
    try:
        batch: list[tuple[Any, ...]] = []
        while tally.rows < quota:
            start = first + span * tally.rows / quota + rng.uniform(0, 60)
            rows = family_rows(rng, holders, min(start, now - 1), now, tally)
            batch += rows[: quota - (tally.rows - len(rows))]
            if len(batch) >= shape.batch:
                await _copy(conn, "refresh_tokens", TOKEN_COLUMNS, batch)
                batch = []
        if batch:
            await _copy(conn, "refresh_tokens", TOKEN_COLUMNS, batch)
    finally:
        await conn.close()
    tally.rows = min(tally.rows, quota)
    return tally


def _token_job(args: tuple[str, Shape, int, int, Holders, float]) -> TokenTally:
    return asyncio.run(_copy_tokens(*args))


# --- codes, reset tokens, audit -----------------------------------------------------------
CODE_COLUMNS = (
    "code_digest", "grant_id", "client_pk", "user_id", "redirect_uri", "scope", "nonce",
    "code_challenge", "code_challenge_method", "session_sid", "auth_time", "acr", "amr",
    "expires_at", "created_at", "consumed_at",
)  # fmt: skip
RESET_COLUMNS = ("token_digest", "user_id", "expires_at", "used_at", "created_at")
AUDIT_COLUMNS = (
    "occurred_at",
    "action",
    "actor",
    "target_type",
    "target",
    "ip",
    "status_code",
    "detail",
)


def code_rows(
    shape: Shape, holders: Holders, redirects: dict[uuid.UUID, str], now: float
) -> Iterator[tuple[Any, ...]]:
    rng = random.Random(shape.seed + 2)
    n, span = shape.codes or 0, 26 * HOUR
    for i in range(n):
        made = now - span + span * i / max(1, n)
        client = holders.clients[pick(rng, holders.client_weights)]
        person = holders.people[pick(rng, holders.people_weights)]
        used = at(made + rng.uniform(0.1, 2.0)) if rng.random() < 0.92 else None
        yield (
            rng.randbytes(32), random_uuid(rng), client, person, redirects[client],
            SCOPES[rng.randrange(len(SCOPES))], sid_of(rng)[:22], sid_of(rng), "S256",
            sid_of(rng), at(made - 2), "urn:idp:acr:1fa", ["pwd"], at(made + CODE_TTL),
            at(made), used,
        )  # fmt: skip


def reset_rows(shape: Shape, holders: Holders, now: float) -> Iterator[tuple[Any, ...]]:
    rng = random.Random(shape.seed + 3)
    n, span = shape.resets or 0, 7 * DAY
    for i in range(n):
        made = now - span + span * i / max(1, n)
        used = at(made + rng.uniform(30, 900)) if rng.random() < 0.6 else None
        person = holders.people[rng.randrange(len(holders.people))]
        yield (rng.randbytes(32), person, at(made + RESET_TTL), used, at(made))


def audit_rows(shape: Shape, holders: Holders, now: float) -> Iterator[tuple[Any, ...]]:
    rng = random.Random(shape.seed + 4)
    n, span = shape.audit or 0, 90 * DAY
    actions = [a for a, _, w in AUDIT_ACTIONS for _ in range(w)]
    status = {a: s for a, s, _ in AUDIT_ACTIONS}
    for i in range(n):
        action = actions[rng.randrange(len(actions))]
        person = str(holders.people[pick(rng, holders.people_weights)])
        client = str(holders.clients[pick(rng, holders.client_weights)])
        ip = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
        detail = {"client_id": client} if not action.startswith(("PATCH", "POST /")) else {}
        if action == "POST backchannel_logout":
            detail = {
                "uri": f"https://{client[:8]}.example/bc",
                "status_code": 200,
                "elapsed_ms": rng.randrange(3, 90),
            }
        yield (
            at(now - span + span * i / max(1, n)), action, person, "user", person, ip,
            status[action], json.dumps(detail),
        )  # fmt: skip


async def _copy_stream(
    conn: asyncpg.Connection, table: str, columns: Sequence[str], rows: Iterator[Any], batch: int
) -> int:
    total = 0
    while chunk := list(itertools.islice(rows, batch)):
        await _copy(conn, table, columns, chunk)
        total += len(chunk)
    return total


# --- Redis sessions -----------------------------------------------------------------------
async def fill_sessions(
    redis_url: str, prefix: str, shape: Shape, holders: Holders, clients: list[str], now: float
) -> int:
    """``shape.sessions`` browser sessions as ``SessionStore`` keeps them; keys written."""
    rng = random.Random(shape.seed + 5)
    redis = Redis.from_url(redis_url)
    keys = 0
    try:
        n = shape.sessions or 0
        for start in range(0, n, 2000):
            async with redis.pipeline(transaction=False) as pipe:
                for _ in range(start, min(n, start + 2000)):
                    sid, person = (
                        sid_of(rng),
                        str(holders.people[pick(rng, holders.people_weights)]),
                    )
                    made = int(now - rng.uniform(0, SESSION_IDLE - 60))
                    record = {
                        "sid": sid, "user_id": person, "auth_time": made, "amr": ["pwd"],
                        "acr": "urn:idp:acr:1fa", "created_at": made, "last_seen": made,
                        "ip": "10.0.0.1", "user_agent": "Mozilla/5.0 (X11; Linux x86_64) bench",
                    }  # fmt: skip
                    pipe.set(f"{prefix}session:{sid}", json.dumps(record), ex=SESSION_IDLE)
                    apps = {
                        json.dumps([clients[pick(rng, holders.client_weights)], sid]): made * 1000
                        for _ in range(rng.randint(1, 3))
                    }
                    apps["~seen"] = made * 1000
                    pipe.zadd(f"{prefix}session-apps:{sid}", apps)
                    pipe.expire(f"{prefix}session-apps:{sid}", SESSION_IDLE)
                    pipe.sadd(f"{prefix}user-sessions:{person}", sid)
                    pipe.expire(f"{prefix}user-sessions:{person}", SESSION_IDLE * 7)
                    keys += 2
                await pipe.execute()
    finally:
        await redis.aclose()
    return keys


# --- the whole fill -----------------------------------------------------------------------
FILLED_TABLES = (
    "clients", "client_secrets", "users", "refresh_tokens", "authorization_codes",
    "password_reset_tokens", "audit_events",
)  # fmt: skip


def plain_dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


async def _fill_small(
    dsn: str, shape: Shape, tag: str, now: float, report: FillReport
) -> tuple[Holders, dict[uuid.UUID, str], list[str]]:
    conn = await asyncpg.connect(dsn)
    try:
        began = time.perf_counter()
        clients, secrets = client_rows(shape, tag, now)
        await _copy(conn, "clients", CLIENT_COLUMNS, clients)
        await _copy(conn, "client_secrets", ("id", "client_pk", "digest", "created_at"), secrets)
        report.add("clients (+ secrets)", len(clients) + len(secrets), time.perf_counter() - began)
        began = time.perf_counter()
        people = []

        def remember(rows: Iterator[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
            for row in rows:
                people.append(row[0])
                yield row

        n = await _copy_stream(
            conn, "users", USER_COLUMNS, remember(user_rows(shape, tag, now)), shape.batch
        )
        report.add("people", n, time.perf_counter() - began)
    finally:
        await conn.close()
    holders = Holders([c[0] for c in clients], people)
    return holders, {c[0]: c[4][0] for c in clients}, [c[1] for c in clients]


async def _fill_rest(
    dsn: str,
    shape: Shape,
    holders: Holders,
    redirects: dict[uuid.UUID, str],
    now: float,
    report: FillReport,
) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        for name, table, columns, rows in (
            (
                "authorization codes",
                "authorization_codes",
                CODE_COLUMNS,
                code_rows(shape, holders, redirects, now),
            ),
            (
                "password reset tokens",
                "password_reset_tokens",
                RESET_COLUMNS,
                reset_rows(shape, holders, now),
            ),
            ("audit rows", "audit_events", AUDIT_COLUMNS, audit_rows(shape, holders, now)),
        ):
            began = time.perf_counter()
            n = await _copy_stream(conn, table, columns, rows, shape.batch)
            report.add(name, n, time.perf_counter() - began)
        report.expired_codes = await conn.fetchval(
            "SELECT count(*) FROM authorization_codes WHERE expires_at < $1", at(now - MARGIN)
        )
        began = time.perf_counter()
        for table in FILLED_TABLES:
            await conn.execute(f"VACUUM (ANALYZE) {table}")
        report.add("VACUUM (ANALYZE) of the filled tables", 0, time.perf_counter() - began)
    finally:
        await conn.close()


def fill(database_url: str, redis_url: str, redis_prefix: str, shape: Shape) -> FillReport:
    """Fill the (migrated) database and Redis; see the module. Prints each step."""
    dsn, now, report = plain_dsn(database_url), time.time(), FillReport(shape)
    tag = uuid.uuid4().hex[:6]
    began_all = time.perf_counter()
    say(
        f"filling: {shape.tokens:,} refresh tokens, {shape.clients} clients,"
        f" {shape.people:,} people"
    )
    holders, redirects, client_ids = asyncio.run(_fill_small(dsn, shape, tag, now, report))
    began = time.perf_counter()
    jobs = max(1, shape.jobs)
    quotas = [shape.tokens // jobs + (1 if j < shape.tokens % jobs else 0) for j in range(jobs)]
    args = [(dsn, shape, j, quotas[j], holders, now) for j in range(jobs)]
    if jobs == 1:
        tallies = [_token_job(args[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            tallies = pool.map(_token_job, args)
    report.families = sum(t.families for t in tallies)
    report.expired_tokens = sum(t.expired for t in tallies)
    report.revoked_tokens = sum(t.revoked for t in tallies)
    report.spent_tokens = sum(t.spent for t in tallies)
    report.add(
        f"refresh tokens ({jobs} jobs)", sum(t.rows for t in tallies), time.perf_counter() - began
    )
    began = time.perf_counter()
    keys = asyncio.run(fill_sessions(redis_url, redis_prefix, shape, holders, client_ids, now))
    report.add(
        f"browser sessions in Redis ({keys:,} keys)",
        shape.sessions or 0,
        time.perf_counter() - began,
    )
    asyncio.run(_fill_rest(dsn, shape, holders, redirects, now, report))
    report.seconds = time.perf_counter() - began_all
    total_rows = sum(s.rows for s in report.steps)
    say(
        f"filled in {report.seconds:,.1f} s ({total_rows / report.seconds:,.0f} rows/s overall); "
        f"refresh tokens: {report.families:,} families, {report.spent_tokens:,} spent, "
        f"{report.revoked_tokens:,} revoked, {report.expired_tokens:,} "
        f"({report.expired_tokens / max(1, shape.tokens):.0%}) past expiry + 1 h; "
        f"codes past expiry + 1 h: {report.expired_codes:,}"
    )
    return report


#: The shape's whole-number options (``--tokens`` ...), in the order ``--help`` lists them.
_COUNTS = (
    "tokens",
    "clients",
    "people",
    "codes",
    "sessions",
    "audit",
    "resets",
    "batch",
    "jobs",
    "seed",
)


def parse_args(argv: list[str] | None) -> tuple[argparse.Namespace, Shape]:
    parser = argparse.ArgumentParser(
        prog="python -m bench.fill", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--database-url", required=True, help="a migrated database")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--redis-prefix", required=True, help="the deployment's SVC_REDIS_PREFIX")
    defaults = Shape()
    for name in _COUNTS:
        parser.add_argument(
            f"--{name}",
            type=int,
            default=getattr(defaults, name)
            if name in {"tokens", "clients", "people", "batch", "jobs", "seed"}
            else None,
        )
    parser.add_argument(
        "--days", type=float, default=defaults.days, help="families start over this many days"
    )
    opts = parser.parse_args(argv)
    shape = Shape(**{k: getattr(opts, k) for k in (*_COUNTS, "days")})
    return opts, shape


def main(argv: list[str] | None = None) -> int:
    opts, shape = parse_args(argv)
    report = fill(opts.database_url, opts.redis_url, opts.redis_prefix, shape)
    print(json.dumps(report.as_dict(), default=str, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
