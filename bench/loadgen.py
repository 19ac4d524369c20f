"""Lean load generator for the chained scenarios wrk cannot express simply.

One process = one asyncio loop (on uvloop) with N keep-alive HTTP/1.1 connections written
by hand (no HTTP library: it keeps the generator's share of the two cores small). The
orchestrator (``bench/run.py``) starts one or more of these processes with
``python -m bench.loadgen`` and a JSON job on stdin; each prints one JSON result.

Scenarios:

- ``code_flow``: GET /oauth2/authorize with a signed-in session cookie → 302 (or 303) with
  ``code=`` → POST /oauth2/token (authorization_code, client_secret_post). One flow =
  both requests; its latency is the sum.
- ``refresh``: POST /oauth2/token (refresh_token, client_secret_basic), each request with
  a fresh pre-issued token taken from the job's pool (rotation makes a token single-use).
- ``refresh_chain``: the same request, each connection sending the refresh token of its
  previous answer (``bench/peer``: a chain per connection keeps it on one peer worker).
- ``signin``: POST /api/v1/auth/login with a fresh pre-created challenge each time.
- ``probe``: GET a cheap route every ``interval`` seconds on a new connection and record
  its latency (shows an event loop blocked by hashing or signing).

Only answers that are what the scenario expects count as successes; everything else is
counted by kind (``HTTP 401``, ``302 without code``, ``timeout``, ...) with a sample body.
Latency percentiles are over successful operations completed inside the measured window.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import uvloop

from bench.loadgen_http import SAMPLE_CHARS, Connection, Failure, failure_of, http_request
from bench.loadgen_operations import (
    Operation,
    Pool,
    PoolEmpty,
    code_flow,
    prepared_token,
    refresh,
    refresh_chain,
    signin,
)


@dataclass
class Tally:
    """What one process saw inside the measured window."""

    t0: float
    t_end: float
    ok: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)
    exhausted_at: float | None = None

    def inside(self, moment: float) -> bool:
        return self.t0 <= moment <= self.t_end

    def stop_time(self) -> float:
        return self.t_end if self.exhausted_at is None else min(self.t_end, self.exhausted_at)


# --- driver -----------------------------------------------------------------------------
async def connection_loop(job: dict[str, Any], tally: Tally, op: Operation) -> None:
    conn = Connection(job["host"], job["port"])
    limit = float(job["timeout"])
    try:
        while time.monotonic() < tally.t_end:
            started = time.monotonic()
            try:
                await asyncio.wait_for(op(conn), limit)
            except PoolEmpty:
                now = time.monotonic()
                if tally.exhausted_at is None or now < tally.exhausted_at:
                    tally.exhausted_at = now
                return
            except Failure as exc:
                if tally.inside(time.monotonic()):
                    tally.errors[exc.kind] += 1
                    tally.samples.setdefault(exc.kind, exc.sample)
                continue
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                conn.close()
                kind = "timeout" if isinstance(exc, TimeoutError) else type(exc).__name__
                if tally.inside(time.monotonic()):
                    tally.errors[kind] += 1
                    tally.samples.setdefault(kind, str(exc)[:SAMPLE_CHARS])
                continue
            ended = time.monotonic()
            if tally.inside(ended):
                tally.ok += 1
                tally.latencies.append(round((ended - started) * 1000, 3))
    finally:
        conn.close()


async def probe(job: dict[str, Any], tally: Tally) -> None:
    """A request every ``interval`` s on a new connection (so both workers get probed)."""
    raw = http_request("GET", job["path"], job["host_header"], {"Connection": "close"})
    interval = float(job["interval"])
    next_at = time.monotonic()
    while time.monotonic() < tally.t_end:
        conn = Connection(job["host"], job["port"])
        started = time.monotonic()
        try:
            answer = await asyncio.wait_for(conn.send(raw), job["timeout"])
            if answer.status != 200:
                raise failure_of(answer)
            tally.ok += 1
            tally.latencies.append(round((time.monotonic() - started) * 1000, 3))
        except Failure as exc:
            tally.errors[exc.kind] += 1
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            tally.errors[type(exc).__name__] += 1
        finally:
            conn.close()
        next_at = max(next_at + interval, time.monotonic())
        await asyncio.sleep(next_at - time.monotonic())


async def run(job: dict[str, Any]) -> dict[str, Any]:
    # start_at is wall-clock time shared by every generator process of one run
    begin = time.monotonic() + max(0.0, float(job["start_at"]) - time.time())
    tally = Tally(t0=begin + float(job["warmup"]), t_end=begin + job["warmup"] + job["duration"])
    await asyncio.sleep(max(0.0, begin - time.monotonic()))
    scenario = job["scenario"]
    if scenario == "probe":
        tally.t0 = begin
        await probe(job, tally)
    else:
        pool = Pool(job.get("pool", []))
        factories = {
            "code_flow": lambda: code_flow(job),
            "refresh": lambda: refresh(job, pool),
            "refresh_chain": lambda: refresh_chain(job, pool),
            "prepared_token": lambda: prepared_token(job, pool),
            "signin": lambda: signin(job, pool),
        }
        make = factories[scenario]()
        await asyncio.gather(
            *(connection_loop(job, tally, make(i)) for i in range(int(job["connections"])))
        )
    return {
        "ok": tally.ok,
        "elapsed": max(0.0, tally.stop_time() - tally.t0),
        "exhausted": tally.exhausted_at is not None and tally.exhausted_at < tally.t_end,
        "errors": dict(tally.errors),
        "samples": tally.samples,
        "latencies_ms": tally.latencies,
    }


def main() -> None:
    job = json.load(sys.stdin)
    # uvloop (installed with Granian): the generator shares the measured cores, and on
    # uvloop it took 0.13 instead of 0.17 cores during the code flow (2026-11-21).
    result = uvloop.run(run(job))
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
