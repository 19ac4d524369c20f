"""Lean load generator for the chained scenarios wrk cannot express simply.

One process = one asyncio loop (on uvloop) with N keep-alive HTTP/1.1 connections written
by hand (no HTTP library: it keeps the generator's share of the two cores small). The
orchestrator (``bench/run.py``) starts one or more of these processes with
``python -m bench.loadgen`` and a JSON job on stdin; each prints one JSON result.

Scenarios:

- ``code_flow``: GET /oauth2/authorize with a signed-in session cookie → 302 with
  ``code=`` → POST /oauth2/token (authorization_code, client_secret_post). One flow =
  both requests; its latency is the sum.
- ``refresh``: POST /oauth2/token (refresh_token, client_secret_basic), each request with
  a fresh pre-issued token taken from the job's pool (rotation makes a token single-use).
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import uvloop

HEAD_END = b"\r\n\r\n"
SAMPLE_CHARS = 300


class Failure(Exception):
    """An answer that is not a success: ``kind`` counts it, ``sample`` shows it."""

    def __init__(self, kind: str, sample: str = "") -> None:
        super().__init__(kind)
        self.kind = kind
        self.sample = sample


@dataclass
class Answer:
    status: int
    headers: dict[bytes, bytes]
    body: bytes


class Connection:
    """One keep-alive HTTP/1.1 connection; reopened after an error or ``Connection: close``."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def send(self, raw: bytes) -> Answer:
        if self.writer is None or self.reader is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(raw)
        head = await self.reader.readuntil(HEAD_END)
        lines = head[: -len(HEAD_END)].split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers: dict[bytes, bytes] = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if b"content-length" in headers:
            body = await self.reader.readexactly(int(headers[b"content-length"]))
        elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            body = await self._chunked(self.reader)
        elif status in (204, 304) or 100 <= status < 200:
            body = b""
        else:  # delimited by close
            body = await self.reader.read()
            self.close()
        if headers.get(b"connection", b"").lower() == b"close":
            self.close()
        return Answer(status, headers, body)

    @staticmethod
    async def _chunked(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def http_request(
    method: str, path: str, host: str, headers: dict[str, str] | None = None, body: bytes = b""
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "User-Agent: idp-bench"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def failure_of(answer: Answer, what: str = "") -> Failure:
    prefix = f"{what}: " if what else ""
    return Failure(
        f"{prefix}HTTP {answer.status}", answer.body[:SAMPLE_CHARS].decode(errors="replace")
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


Operation = Callable[[Connection], Awaitable[None]]


class Pool:
    """Single-use items (refresh tokens, challenges); empty means the run must stop."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.next = 0

    def take(self) -> Any | None:
        if self.next >= len(self.items):
            return None
        item = self.items[self.next]
        self.next += 1
        return item


# --- scenarios --------------------------------------------------------------------------
def code_flow(job: dict[str, Any]) -> Callable[[int], Operation | None]:
    host = job["host_header"]
    cookies: list[str] = job["cookies"]
    authorize_path: str = job["authorize_path"]
    token_body: str = job["token_body"]
    counter = 0

    def make(conn_index: int) -> Operation:
        cookie = cookies[conn_index % len(cookies)]

        async def flow(conn: Connection) -> None:
            nonlocal counter
            counter += 1
            path = f"{authorize_path}&state=s{conn_index}x{counter}"
            first = await conn.send(http_request("GET", path, host, {"Cookie": cookie}))
            if first.status != 302:
                raise failure_of(first, "authorize")
            location = first.headers.get(b"location", b"").decode()
            codes = parse_qs(urlsplit(location).query).get("code")
            if not codes:
                raise Failure("authorize: 302 without code", location[:SAMPLE_CHARS])
            body = f"{token_body}&code={quote(codes[0], safe='')}".encode()
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            second = await conn.send(http_request("POST", "/oauth2/token", host, form, body))
            if second.status != 200:
                raise failure_of(second, "token")
            if b'"access_token"' not in second.body:
                sample = second.body[:SAMPLE_CHARS].decode(errors="replace")
                raise Failure("token: 200 without access_token", sample)

        return flow

    return make


def refresh(job: dict[str, Any], pool: Pool) -> Callable[[int], Operation]:
    host = job["host_header"]
    headers = {
        "Authorization": job["authorization"],
        "Content-Type": "application/x-www-form-urlencoded",
    }

    def make(_: int) -> Operation:
        async def one(conn: Connection) -> None:
            token = pool.take()
            if token is None:
                raise PoolEmpty
            body = f"grant_type=refresh_token&refresh_token={quote(token, safe='')}".encode()
            answer = await conn.send(http_request("POST", "/oauth2/token", host, headers, body))
            if answer.status != 200:
                raise failure_of(answer)
            if b'"refresh_token"' not in answer.body:
                raise Failure("200 without refresh_token", answer.body[:SAMPLE_CHARS].decode())

        return one

    return make


def signin(job: dict[str, Any], pool: Pool) -> Callable[[int], Operation]:
    host = job["host_header"]
    headers = {"Content-Type": "application/json"}

    def make(_: int) -> Operation:
        async def one(conn: Connection) -> None:
            item = pool.take()
            if item is None:
                raise PoolEmpty
            challenge, email, password = item
            body = json.dumps({"challenge": challenge, "email": email, "password": password})
            answer = await conn.send(
                http_request("POST", "/api/v1/auth/login", host, headers, body.encode())
            )
            if answer.status != 200:
                raise failure_of(answer)

        return one

    return make


class PoolEmpty(Exception):
    """No single-use item left: this connection stops."""


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
