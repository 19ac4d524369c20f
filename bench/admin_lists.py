"""Benchmark of the admin lists (issue 4 acceptance 7): ``bash bench/run.sh --admin``.

Targets: listing 10,000 users a page at a time, and reading ``effective-scopes`` for a user
in 50 groups, each under 50 ms p99, without N+1 queries.

- An isolated stack (the test harness), the admin service with one Granian worker.
- Records written straight into its database: 10,000 users; an API with 100 scopes; 50
  roles of two scopes each; 50 groups, each with one role; one person in all 50 groups
  with two roles and two scopes of their own.
- Latency over HTTP at the service port, one request at a time (a list is read by one
  operator, not by a crowd): every page of the 10,000 users at the default page size (50)
  and at the largest (200), three walks each; ``effective-scopes`` 300 times.
- Queries per request: the same app, built in this process against the same database, with
  a counter on its SQLAlchemy engine; each route is called through Litestar's test client,
  so the count covers the guard, the controller and the repository code the service runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from litestar.testing import AsyncTestClient
from sqlalchemy import event

from admin_service.app import create_app
from bench.measure import percentile, say
from idp_common.config import load_settings
from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import tokens
from tests.harness.stack import Stack, new_stack, remove_stack, start_stack

USERS = 10_000
GROUPS = 50
TARGET_MS = 50.0

SEED_SQL: list[tuple[str, tuple[int, ...]]] = [
    (
        """INSERT INTO users (email, username, display_name)
        SELECT 'bench' || g || '@example.com', 'bench' || g, 'Bench ' || g
        FROM generate_series(1, $1::int) AS g""",
        (USERS,),
    ),
    ("INSERT INTO apis (name, audience) VALUES ('bench', 'urn:bench')", ()),
    (
        """INSERT INTO scopes (api_id, value, description)
        SELECT (SELECT id FROM apis WHERE name = 'bench'), 'bench:r' || g || ':' || a,
               'Bench scope ' || g || ' ' || a
        FROM generate_series(1, $1::int) AS g, (VALUES ('read'), ('write')) AS v(a)""",
        (GROUPS,),
    ),
    (
        """INSERT INTO roles (name, description)
        SELECT 'bench-role-' || g, '' FROM generate_series(1, $1::int) AS g""",
        (GROUPS,),
    ),
    (
        """INSERT INTO role_scopes (role_id, scope_id)
        SELECT r.id, s.id FROM roles r JOIN scopes s
        ON s.value LIKE 'bench:r' || substr(r.name, 12) || ':%'
        WHERE r.name LIKE 'bench-role-%'""",
        (),
    ),
    (
        """INSERT INTO groups (name, description)
        SELECT 'bench-group-' || g, '' FROM generate_series(1, $1::int) AS g""",
        (GROUPS,),
    ),
    (
        """INSERT INTO group_roles (group_id, role_id)
        SELECT gr.id, r.id FROM groups gr JOIN roles r
        ON substr(gr.name, 13) = substr(r.name, 12)
        WHERE gr.name LIKE 'bench-group-%'""",
        (),
    ),
    (
        """INSERT INTO group_members (group_id, user_id)
        SELECT gr.id, u.id FROM groups gr, users u
        WHERE gr.name LIKE 'bench-group-%' AND u.email = 'bench1@example.com'""",
        (),
    ),
    (
        """INSERT INTO user_roles (user_id, role_id)
        SELECT u.id, r.id FROM users u, roles r
        WHERE u.email = 'bench1@example.com' AND r.name IN ('bench-role-1', 'bench-role-2')""",
        (),
    ),
    (
        """INSERT INTO user_scopes (user_id, scope_id)
        SELECT u.id, s.id FROM users u, scopes s
        WHERE u.email = 'bench1@example.com' AND s.value IN ('bench:r3:read', 'bench:r4:read')""",
        (),
    ),
]


async def seed(stack: Stack) -> str:
    """Write the records; return the id of the person in every group."""
    conn = await asyncpg.connect(
        stack.database_url.replace("postgresql+asyncpg://", "postgresql://")
    )
    try:
        async with conn.transaction():
            for statement, args in SEED_SQL:
                await conn.execute(statement, *args)
        await conn.execute("ANALYZE")
        return str(await conn.fetchval("SELECT id FROM users WHERE email = 'bench1@example.com'"))
    finally:
        await conn.close()


def walk_users(client: httpx.Client, limit: int) -> tuple[list[float], int]:
    """Every page of the user list; (latencies in ms, users seen)."""
    latencies, seen, cursor = [], 0, None
    while True:
        params: dict[str, Any] = {"limit": limit}
        if cursor:
            params["cursor"] = cursor
        start = time.perf_counter()
        response = client.get("/admin/users", params=params)
        latencies.append((time.perf_counter() - start) * 1000)
        response.raise_for_status()
        body = response.json()
        seen += len(body["items"])
        cursor = body.get("nextCursor")
        if not cursor:
            return latencies, seen


def time_effective_scopes(
    client: httpx.Client, user_id: str, times: int
) -> tuple[list[float], int]:
    latencies, count = [], 0
    for _ in range(times):
        start = time.perf_counter()
        response = client.get(f"/admin/users/{user_id}/effective-scopes")
        latencies.append((time.perf_counter() - start) * 1000)
        response.raise_for_status()
        count = len(response.json()["items"])
    return latencies, count


@contextmanager
def counting(engine: Any) -> Iterator[list[str]]:
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


async def query_counts(stack: Stack, token: str, user_id: str) -> dict[str, int]:
    """Statements per request of each route, through the app built in this process."""
    os.environ.update(stack.env)
    asgi = create_app(load_settings())
    logging.getLogger("httpx").setLevel(logging.WARNING)  # the test client logs each call
    app = asgi.app  # type: ignore[attr-defined]
    engine = app.state.resources.engine.sync_engine
    headers = {"Authorization": f"Bearer {token}"}
    counts: dict[str, int] = {}
    async with AsyncTestClient(app=app) as client:
        first = await client.get("/admin/users", params={"limit": 50}, headers=headers)
        first.raise_for_status()
        cursor = first.json()["nextCursor"]
        requests = {
            "GET /admin/users?limit=50 (first page)": ("/admin/users", {"limit": 50}),
            "GET /admin/users?limit=50&cursor=... (next page)": (
                "/admin/users",
                {"limit": 50, "cursor": cursor},
            ),
            "GET /admin/users?limit=200": ("/admin/users", {"limit": 200}),
            "GET /admin/users/{id}/effective-scopes (50 groups)": (
                f"/admin/users/{user_id}/effective-scopes",
                {},
            ),
        }
        for label, (path, params) in requests.items():
            with counting(engine) as statements:
                response = await client.get(path, params=params, headers=headers)
                response.raise_for_status()
            counts[label] = len(statements)
    return counts


def row(label: str, latencies: list[float], extra: str) -> str:
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    assert p50 is not None and p99 is not None
    verdict = "yes" if p99 < TARGET_MS else "NO"
    return (
        f"{label:<52} {len(latencies):>6} {p50:>8.1f} {p99:>8.1f} {max(latencies):>8.1f} "
        f"{statistics.fmean(latencies):>8.1f}  {extra:<22} p99 < {TARGET_MS:.0f} ms: {verdict}"
    )


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="idp-bench-admin-"))
    stack = new_stack(base)
    try:
        say(f"starting an isolated stack (run {stack.run_id})")
        start_stack(stack)
        say(f"writing {USERS:,} users, {GROUPS} groups and roles")
        user_id = asyncio.run(seed(stack))
        token = tokens.mint(
            stack.key_dir, issuer=stack.issuer, scopes=ADMIN_SCOPES, subject="bench", ttl=3600
        )
        headers = {"Authorization": f"Bearer {token}"}
        lines = []
        with httpx.Client(base_url=stack.service_url("admin"), headers=headers, timeout=30) as c:
            walk_users(c, 50)  # warm
            for limit in (50, 200):
                say(f"walking the user list, {limit} a page")
                all_latencies: list[float] = []
                seen = 0
                for _ in range(3):
                    latencies, seen = walk_users(c, limit)
                    all_latencies += latencies
                lines.append(
                    row(
                        f"GET /admin/users, limit={limit}, every page x3",
                        all_latencies,
                        f"{seen:,} users/walk",
                    )
                )
            say("effective-scopes of the person in 50 groups")
            time_effective_scopes(c, user_id, 20)  # warm
            latencies, count = time_effective_scopes(c, user_id, 300)
            lines.append(
                row("GET /admin/users/{id}/effective-scopes", latencies, f"{count} scopes")
            )
        say("counting the queries of each route")
        counts = asyncio.run(query_counts(stack, token, user_id))
        head = (
            f"{'request (one at a time, admin service port, 1 worker)':<52} {'n':>6} "
            f"{'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'mean ms':>8}"
        )
        print("\n".join(["", "Admin lists benchmark", "", head, "-" * len(head), *lines, ""]))
        print("SQL statements per request (counted on the app's engine, same code as the service):")
        for label, n in counts.items():
            print(f"  {label:<52} {n}")
        print()
        return 0
    finally:
        say("removing the stack")
        remove_stack(stack)


if __name__ == "__main__":
    sys.exit(main())
