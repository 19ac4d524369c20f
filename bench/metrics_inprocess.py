"""The token service's app driven in this process, without a server: CPU per request.

``python -m bench.metrics_inprocess ROW REQUESTS`` (run by ``bench/metrics_cost.py``, once
with metrics on and once off, in a fresh process each, with the stack's ``SVC_*`` settings
and, for "on", a ``PROMETHEUS_MULTIPROC_DIR`` of its own): builds the app as Granian would
(``token_service.app.create_app``), runs its lifespan, warms up, then sends REQUESTS
requests through the ASGI interface, 32 in flight, on uvloop, and prints one JSON line:
CPU microseconds per request (``time.process_time``) and the answers' statuses.

CPU time of this one process is what other processes on the machine disturb least, so
the difference between on and off is the app's own added cost per request: the request
wrapper, the counters, the worker's tick. It leaves out Granian and the kernel (the same
with metrics on or off), so as a share of this figure the cost is an upper bound.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections import Counter
from typing import Any

import uvloop

from token_service.app import create_app

IN_FLIGHT = 32


def scope_of(row: str, headers: dict[str, str]) -> tuple[dict[str, Any], bytes]:
    path = "/oauth2/token" if row == "client_credentials" else "/oauth2/userinfo"
    body = os.environ["BENCH_BODY"].encode() if row == "client_credentials" else b""
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    if body:
        raw.append((b"content-length", str(len(body)).encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST" if body else "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), *raw],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8101),
    }
    return scope, body


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


async def main(row: str, count: int) -> dict[str, Any]:
    app = create_app()
    lifespan: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    await lifespan.put({"type": "lifespan.startup"})

    async def send(message: dict[str, Any]) -> None:
        await answers.put(message)

    running = asyncio.create_task(app({"type": "lifespan"}, lifespan.get, send))
    started = await answers.get()
    assert started["type"] == "lifespan.startup.complete", started
    headers = json.loads(os.environ["BENCH_HEADERS"])
    scope, body = scope_of(row, headers)
    await drive(app, scope, body, max(200, count // 5))  # warm-up: pools, caches
    cpu, wall = time.process_time(), time.monotonic()
    statuses = await drive(app, scope, body, count)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    await lifespan.put({"type": "lifespan.shutdown"})
    await answers.get()
    await running
    return {
        "cpu_us": cpu / count * 1e6,
        "wall_s": wall,
        "statuses": {str(k): v for k, v in statuses.items()},
    }


if __name__ == "__main__":
    result = uvloop.run(main(sys.argv[1], int(sys.argv[2])))
    print(json.dumps(result))
