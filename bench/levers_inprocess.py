"""One lever of the token service, on and off, in one process (issue 24 item 3).

``python -m bench.levers_inprocess ROWS BATCH ROUNDS`` (run by ``bench/levers.py`` with the
stack's ``SVC_*`` settings and ``BENCH_FIXTURES``, the path of a JSON file of the fixtures):
builds the token app twice as Granian would (``token_service.app.create_app``), once with
``SVC_LEAN_ROUTES=true`` and once with ``false``, runs both lifespans, then ROUNDS times
drives BATCH requests of each row through each app (32 in flight, on uvloop), the order
alternating. Both arms share the process, its pools and caches, so they differ by the
transport alone, and a neighbour's load on a shared machine weighs on both alike. Prints one
JSON line: per row and arm, the median CPU microseconds per request (``time.process_time``)
and the answers' status counts.

Leaves out Granian and the kernel (the same for both arms).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import uvloop

from bench.metrics_inprocess import asgi_scope, lifespan_started, one
from idp_common.config import load_settings
from token_service.app import create_app

IN_FLIGHT = 32
FORM = "application/x-www-form-urlencoded"
Request = tuple[dict[str, Any], bytes]


def requests(row: str, fixtures: dict[str, Any]) -> Callable[[], Request]:
    """A maker of the row's next request (refresh: each token once)."""
    basic = {"authorization": fixtures["basic"], "content-type": FORM}
    if row == "client_credentials":
        body = f"grant_type=client_credentials&scope={fixtures['api_scope']}".encode()
        return lambda: (asgi_scope("POST", "/oauth2/token", basic, body), body)
    if row == "userinfo":
        bearer = {"authorization": "Bearer " + fixtures["access_token"]}
        return lambda: (asgi_scope("GET", "/oauth2/userinfo", bearer, b""), b"")
    if row == "introspection":
        body = f"token={fixtures['access_token']}".encode()
        return lambda: (asgi_scope("POST", "/oauth2/introspect", basic, body), body)
    if row == "refresh":
        tokens: Iterator[str] = iter(fixtures["refresh_tokens"])

        def refresh() -> Request:
            body = f"grant_type=refresh_token&refresh_token={next(tokens)}".encode()
            return asgi_scope("POST", "/oauth2/token", basic, body), body

        return refresh
    raise ValueError(f"unknown row {row}")


async def drive(app: Any, make: Callable[[], Request], count: int) -> Counter[int]:
    statuses: Counter[int] = Counter()
    queue = iter(range(count))

    async def lane() -> None:
        for _ in queue:
            scope, body = make()
            statuses[await one(app, scope, body)] += 1

    await asyncio.gather(*(lane() for _ in range(IN_FLIGHT)))
    return statuses


def build(lean: bool) -> Any:
    os.environ["SVC_LEAN_ROUTES"] = "true" if lean else "false"
    return create_app(load_settings())


async def main(
    rows: list[str], batch: int, rounds: int, fixtures: dict[str, Any]
) -> dict[str, Any]:
    apps = {"lean": build(True), "full": build(False)}
    for app in apps.values():
        await lifespan_started(app)
    result: dict[str, Any] = {}
    for row in rows:
        make = requests(row, fixtures)
        cpu: dict[str, list[float]] = {arm: [] for arm in apps}
        statuses: dict[str, Counter[int]] = {arm: Counter() for arm in apps}
        for number in range(rounds + 2):  # two rounds of warm-up
            order = list(apps) if number % 2 else list(reversed(apps))
            for arm in order:
                started = time.process_time()
                statuses[arm] += await drive(apps[arm], make, batch)
                if number >= 2:
                    cpu[arm].append((time.process_time() - started) / batch * 1e6)
        result[row] = {
            arm: {
                "median_us": statistics.median(cpu[arm]),
                "statuses": {str(k): v for k, v in statuses[arm].items()},
            }
            for arm in apps
        }
    return result


if __name__ == "__main__":
    with open(os.environ["BENCH_FIXTURES"]) as source:
        made = json.load(source)
    outcome = uvloop.run(main(sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]), made))
    print(json.dumps(outcome))
