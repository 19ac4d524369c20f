"""What counting one request costs by itself: ``RequestMetrics`` around an app that does
nothing, against the same app behind ``DrainRequestBody`` alone (what serves a request
when metrics are off), interleaved in one process.

``python -m bench.metrics_wrapper`` (run by ``bench/replicas.py`` in a
``PROMETHEUS_MULTIPROC_DIR`` of its own, as ``idp serve`` runs a worker) prints one JSON
line: the median microseconds per request of each arm and their difference, and the time
of one ``flush`` (the worker writes its tallies once a second). With no app work to hide
it, this difference is the whole per-request cost of the wrapper; the end-to-end rounds
cannot resolve it, because two identical services differ by more (docs/operations.md
"What metrics cost").
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

import uvloop

from idp_common.observability import metrics
from idp_common.web.drain import ASGIApp, DrainRequestBody, Message, Receive, Scope, Send
from idp_common.web.metrics_http import RequestMetrics

BATCH = 20_000
ROUNDS = 40
SCOPE: Scope = {
    "type": "http",
    "method": "GET",
    "http_version": "1.1",
    "path": "/oauth2/userinfo",
    "path_template": "/oauth2/userinfo",
    "headers": [(b"host", b"127.0.0.1"), (b"authorization", b"Bearer x")],
}


async def _app(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


async def _receive() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _send(_message: Message) -> None:
    return None


async def _batch(asgi: ASGIApp) -> float:
    started = time.perf_counter()
    for _ in range(BATCH):
        await asgi(SCOPE, _receive, _send)
    return (time.perf_counter() - started) / BATCH * 1e6


async def measure() -> dict[str, Any]:
    metrics.configure(enabled=True, service="token")
    bare: ASGIApp = DrainRequestBody(_app, limit=1 << 20)
    counted: ASGIApp = RequestMetrics(DrainRequestBody(_app, limit=1 << 20))
    off: list[float] = []
    on: list[float] = []
    for number in range(ROUNDS):
        arms: list[tuple[ASGIApp, list[float]]] = [(bare, off), (counted, on)]
        for asgi, figures in arms if number % 2 == 0 else reversed(arms):
            figures.append(await _batch(asgi))
        metrics.flush()
    await _batch(counted)  # a second's worth of tallies, as a busy worker holds
    started = time.perf_counter()
    metrics.flush()
    flush_us = (time.perf_counter() - started) * 1e6
    return {
        "off_us": statistics.median(off),
        "on_us": statistics.median(on),
        "added_us": statistics.median(on) - statistics.median(off),
        "flush_us": flush_us,
    }


def main() -> None:
    print(json.dumps(uvloop.run(measure())))


if __name__ == "__main__":
    main()
