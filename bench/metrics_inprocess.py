"""The token service's app driven in this process, without a server: the CPU metrics add
to one request.

``python -m bench.metrics_inprocess ROW BATCH ROUNDS`` (run by ``bench/metrics_cost.py``
with the stack's ``SVC_*`` settings and a ``PROMETHEUS_MULTIPROC_DIR`` of its own): builds
the token app as Granian would (``token_service.app.create_app``, metrics off), runs its
lifespan, and wraps the very same app in ``RequestMetrics``, the wrapper
``SVC_METRICS_ENABLED`` adds. Then, ROUNDS times, BATCH requests through each (32 in
flight, on uvloop), the order alternating, with the counting switch
(``observability.metrics.configure``) on for the wrapped batches and off for the bare
ones, and the worker's once-a-second write of the tallies running as in a service. So the
two arms differ by exactly what metrics add to a request, and run interleaved in one
process, which other processes on a shared machine disturb least. Prints one JSON line:
the median and mean CPU microseconds per request (``time.process_time``) of each arm.

It leaves out Granian and the kernel (the same with metrics on or off), so as a share of
these figures the cost is an upper bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
from collections import Counter
from typing import Any

import uvloop

from idp_common.observability import metrics
from idp_common.web.metrics_http import RequestMetrics
from token_service.app import create_app

IN_FLIGHT = 32


def scope_of(row: str, headers: dict[str, str]) -> tuple[dict[str, Any], bytes]:
    path = "/oauth2/token" if row == "client_credentials" else "/oauth2/userinfo"
    body = os.environ["BENCH_BODY"].encode() if row == "client_credentials" else b""
    return asgi_scope("POST" if body else "GET", path, headers, body), body


def asgi_scope(method: str, path: str, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    """The HTTP scope Granian would give the app for this request from 127.0.0.1."""
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    if body:
        raw.append((b"content-length", str(len(body)).encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), *raw],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8101),
    }


async def one(app: Any, scope: dict[str, Any], body: bytes) -> int:
    status = 0
    sent_body = False

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)  # no disconnect while the answer is written
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(dict(scope), receive, send)
    return status


async def drive(app: Any, scope: dict[str, Any], body: bytes, count: int) -> Counter[int]:
    statuses: Counter[int] = Counter()
    queue = iter(range(count))

    async def lane() -> None:
        for _ in queue:
            statuses[await one(app, scope, body)] += 1

    await asyncio.gather(*(lane() for _ in range(IN_FLIGHT)))
    return statuses


async def lifespan_started(app: Any) -> None:
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await inbox.put({"type": "lifespan.startup"})

    async def send(message: dict[str, Any]) -> None:
        await outbox.put(message)

    asyncio.get_running_loop().create_task(app({"type": "lifespan"}, inbox.get, send))
    started = await outbox.get()
    assert started["type"] == "lifespan.startup.complete", started


async def tick() -> None:
    """The worker's tick of a service with metrics on: the tallies written every second."""
    while True:
        await asyncio.sleep(1.0)
        metrics.flush()


async def main(row: str, batch: int, rounds: int) -> dict[str, Any]:
    bare = create_app()  # SVC_METRICS_ENABLED=false in the environment: no wrapper
    wrapped = RequestMetrics(bare)
    await lifespan_started(bare)
    scope, body = scope_of(row, json.loads(os.environ["BENCH_HEADERS"]))
    arms: dict[str, list[float]] = {"on": [], "off": []}
    statuses: Counter[int] = Counter()
    ticking = asyncio.get_running_loop().create_task(tick())
    for warm in (True, False):
        for number in range(5 if warm else rounds):
            order = ("on", "off") if number % 2 else ("off", "on")
            for arm in order:
                metrics.configure(enabled=arm == "on", service="token")
                started = time.process_time()
                statuses += await drive(wrapped if arm == "on" else bare, scope, body, batch)
                if not warm:
                    arms[arm].append((time.process_time() - started) / batch * 1e6)
    ticking.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await ticking
    return {
        arm: {"median": statistics.median(values), "mean": statistics.fmean(values)}
        for arm, values in arms.items()
    } | {"statuses": {str(k): v for k, v in statuses.items()}}


if __name__ == "__main__":
    result = uvloop.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
    print(json.dumps(result))
