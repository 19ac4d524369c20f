"""Benchmark of the token and sign-in endpoints on an isolated stack (``bash bench/run.sh``).

Starts its own stack with the test harness (own database, Redis prefix, ports, keys),
the token and sign-in services with two Granian workers each and the per-address limits
raised, creates the records it needs, measures every scenario directly at the service
port at each concurrency, prints one table, and removes the stack.

Fixed requests are driven by wrk (``bench/lua/request.lua``); chained or single-use ones
(code flow, refresh, password sign-in) by ``bench/loadgen.py``. Both share the machine's
cores with the services, so the generator is kept lean and its CPU use is printed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench import ceilings as ceiling_mod
from bench import records as rec
from bench.bare_sign import ISSUE_BARE_RATE
from bench.cpu import Meter
from tests.harness import infra
from tests.harness.records import pkce_pair
from tests.harness.stack import Stack, new_stack, remove_stack, start_stack

ROOT = Path(__file__).resolve().parents[1]
LUA = ROOT / "bench/lua/request.lua"
LOGS = ROOT / "var/bench/logs"
EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt))\b")
RAISED_LIMIT = "10000000"
#: Interval of the event-loop probe: a loop held up by a hash (~100 ms) shows at any of them.
PROBE_MS = 50.0
FORM = "application/x-www-form-urlencoded"


def say(message: str) -> None:
    print(f"\033[1m==> {message}\033[0m", file=sys.stderr, flush=True)


# --- results ----------------------------------------------------------------------------
@dataclass
class Result:
    key: str
    label: str
    conc: int
    unit: str
    rate: float = 0.0
    p50: float | None = None
    p99: float | None = None
    ok: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    samples: dict[str, str] = field(default_factory=dict)
    gen_cpu: float = 0.0  # cores the load generator used, averaged over the row
    other_cpu: float = 0.0  # cores other processes on the machine took during the row
    notes: list[str] = field(default_factory=list)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


@dataclass
class ProbeResult:
    label: str
    count: int
    p50: float | None
    p99: float | None
    worst: float | None
    errors: dict[str, int]


def percentile(values: list[float], pct: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


# --- wrk --------------------------------------------------------------------------------
@dataclass
class WrkRequest:
    path: str
    method: str = "GET"
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    expect: str = ""


def _wrk(base: str, req: WrkRequest, conc: int, seconds: float, threads: int) -> dict[str, Any]:
    env = {
        **os.environ,
        "BENCH_METHOD": req.method,
        "BENCH_BODY": req.body,
        "BENCH_HEADERS": "\n".join(f"{k}: {v}" for k, v in req.headers.items()),
        "BENCH_EXPECT": req.expect,
    }
    command = [
        "wrk",
        f"-t{min(threads, conc)}",
        f"-c{conc}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
        base + req.path,
    ]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    for line in out.stdout.splitlines():
        if line.startswith("BENCH_JSON "):
            parsed: dict[str, Any] = json.loads(line.removeprefix("BENCH_JSON "))
            return parsed
    raise RuntimeError(f"wrk gave no result (exit {out.returncode}):\n{out.stdout}\n{out.stderr}")


def wrk_row(
    key: str,
    label: str,
    base: str,
    req: WrkRequest,
    conc: int,
    opts: argparse.Namespace,
    meter: Meter,
) -> Result:
    result = Result(key, label, conc, "req/s")
    if opts.warmup > 0:
        _wrk(base, req, conc, opts.warmup, opts.wrk_threads)
    with meter:
        data = _wrk(base, req, conc, opts.duration, opts.wrk_threads)
    result.gen_cpu, result.other_cpu = meter.generator, meter.others
    seconds = data["duration_us"] / 1e6
    for status, count in data["statuses"].items():
        if status.isdigit() and 200 <= int(status) < 300:
            result.ok += count
        else:
            kind = f"HTTP {status}"
            result.errors[kind] += count
            result.samples[kind] = data["samples"].get(status, "")
    for kind in ("connect", "read", "write", "timeout"):
        if data[kind]:
            result.errors[f"socket {kind}"] += data[kind]
    result.rate = result.ok / seconds if seconds else 0.0
    if result.ok:  # wrk's percentiles cover every answer, errors included
        result.p50, result.p99 = data["p50_us"] / 1000, data["p99_us"] / 1000
    return result


# --- the Python generator ---------------------------------------------------------------
def run_generators(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    procs = []
    for job in jobs:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bench.loadgen"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(job))
        proc.stdin.close()
    results = []
    for proc in procs:
        assert proc.stdout is not None
        out = proc.stdout.read()
        if proc.wait() != 0 or not out:
            raise RuntimeError(f"load generator exited with {proc.returncode}")
        results.append(json.loads(out))
    return results


def split(items: list[Any], parts: int) -> list[list[Any]]:
    return [items[i::parts] for i in range(parts)]


@dataclass
class Window:
    warmup: float
    duration: float


def gen_row(
    key: str,
    label: str,
    unit: str,
    base_job: dict[str, Any],
    conc: int,
    opts: argparse.Namespace,
    meter: Meter,
    pool: list[Any] | None = None,
    probes: tuple[dict[str, Any], ...] = (),
    window: Window | None = None,
) -> tuple[Result, list[dict[str, Any]]]:
    """One measurement by ``opts.procs`` generator processes, and probes in its window."""
    win = window or Window(opts.warmup, opts.duration)
    procs = max(1, min(opts.procs, conc))
    start_at = time.time() + 1.0
    jobs = []
    pools = split(pool, procs) if pool is not None else [None] * procs
    for i in range(procs):
        job = {
            **base_job,
            "connections": conc // procs + (1 if i < conc % procs else 0),
            "start_at": start_at,
            "warmup": win.warmup,
            "duration": win.duration,
        }
        if pools[i] is not None:
            job["pool"] = pools[i]
        jobs.append(job)
    for probe in probes:  # the measured window only
        jobs.append(
            {**probe, "start_at": start_at + win.warmup, "warmup": 0.0, "duration": win.duration}
        )
    with meter:
        outputs = run_generators(jobs)
    probe_outs = outputs[procs:]
    outputs = outputs[:procs]
    result = Result(key, label, conc, unit, gen_cpu=meter.generator, other_cpu=meter.others)
    latencies: list[float] = []
    for out in outputs:
        result.ok += out["ok"]
        if out["elapsed"] > 0:
            result.rate += out["ok"] / out["elapsed"]
        latencies += out["latencies_ms"]
        result.errors.update(out["errors"])
        for kind, sample in out["samples"].items():
            result.samples.setdefault(kind, sample)
    if any(out["exhausted"] for out in outputs):
        shortest = min(out["elapsed"] for out in outputs)
        result.notes.append(
            f"pool of {len(pool or [])} single-use items ran out: measured {shortest:.1f} s"
        )
    if window is not None:
        result.notes.append(f"window stretched: warm-up {win.warmup:.1f} s, {win.duration:.1f} s")
    result.p50, result.p99 = percentile(latencies, 50), percentile(latencies, 99)
    return result, probe_outs


def probe_result(label: str, out: dict[str, Any]) -> ProbeResult:
    values = out["latencies_ms"]
    return ProbeResult(
        label,
        len(values),
        percentile(values, 50),
        percentile(values, 99),
        max(values) if values else None,
        out["errors"],
    )


# --- the scenarios ----------------------------------------------------------------------
@dataclass
class Run:
    stack: Stack
    fixtures: rec.Fixtures
    opts: argparse.Namespace
    ceilings: ceiling_mod.Ceilings
    results: list[Result] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    load_before: str = ""

    @property
    def token_base(self) -> str:
        return self.stack.service_url("token")

    def meter(self) -> Meter:
        pids = [p.popen.pid for p in self.stack.processes]
        return Meter(pids, self.stack.db_name)

    def host_job(self, service: str) -> dict[str, Any]:
        port = self.stack.service_ports[service]
        return {"host": "127.0.0.1", "port": port, "host_header": f"127.0.0.1:{port}"}

    def probe_job(self, service: str) -> dict[str, Any]:
        return {
            **self.host_job(service),
            "scenario": "probe",
            "path": "/health/live",
            "interval": self.opts.probe_ms / 1000,
            "timeout": 10.0,
            "connections": 1,
        }

    def result(self, key: str, conc: int) -> Result | None:
        return next((r for r in self.results if r.key == key and r.conc == conc), None)

    def add(self, result: Result) -> None:
        errors = f", {result.error_count} errors" if result.error_count else ""
        say(f"  {result.label} c={result.conc}: {result.rate:,.0f} {result.unit}{errors}")
        self.results.append(result)

    # static requests ------------------------------------------------------------------
    def wrk(self, key: str, label: str, req: WrkRequest) -> None:
        for conc in self.opts.concurrency:
            self.add(wrk_row(key, label, self.token_base, req, conc, self.opts, self.meter()))

    def hello(self) -> None:
        self.wrk("hello", "hello-world GET /health/live", WrkRequest("/health/live"))

    def bare_sign(self, label: str = "bare Litestar route, one RS256 sign") -> None:
        """The issue's yardstick (bench/bare_sign.py), served like the services, then stopped.

        Measured first and again last: the targets use the faster of the two, so a noisy
        moment on the machine can only make them harder, never easier.
        """
        port = infra.free_port()
        command = [sys.executable, "-m", "bench.bare_sign", str(self.stack.key_dir), str(port)]
        process = self.stack.spawn("bare-sign", [*command, str(self.opts.workers)], port, {})
        try:
            self.stack.wait_until_up(process, "/sign")
            req = WrkRequest("/sign", "POST", expect='"access_token"')
            for conc in self.opts.concurrency:
                self.add(
                    wrk_row(
                        "bare_sign",
                        label,
                        process.url,
                        req,
                        conc,
                        self.opts,
                        self.meter(),
                    )
                )
        finally:
            process.stop()

    @property
    def machine_scale(self) -> float | None:
        """This machine's speed against the issue's: bare route at c=64 / 4,300."""
        bare = self.yardstick
        return bare.rate / ISSUE_BARE_RATE if bare and bare.rate else None

    @property
    def yardstick(self) -> Result | None:
        rows = [r for r in self.results if r.key == "bare_sign" and r.conc == 64]
        return max(rows, key=lambda r: r.rate) if rows else None

    def jwks(self) -> None:
        self.wrk(
            "jwks",
            "JWKS GET /.well-known/jwks.json",
            WrkRequest("/.well-known/jwks.json", expect='"keys"'),
        )

    def client_credentials(self) -> None:
        req = WrkRequest(
            "/oauth2/token",
            "POST",
            {"Authorization": self.fixtures.basic, "Content-Type": FORM},
            f"grant_type=client_credentials&scope={quote(rec.API_SCOPE)}",
            '"access_token"',
        )
        self.wrk("client_credentials", "client_credentials (secret_basic)", req)

    def access_token(self) -> str | None:
        token, how = rec.access_token_from_endpoint(self.stack, self.fixtures)
        if token is None:
            self.notes.append(f"no access token from the token endpoint: {how}")
        return token

    def introspection(self) -> None:
        token = self.access_token()
        if token is None:
            self.skip("introspection", "introspection (access token)", "req/s", "no access token")
            return
        req = WrkRequest(
            "/oauth2/introspect",
            "POST",
            {"Authorization": self.fixtures.basic, "Content-Type": FORM},
            f"token={token}&token_type_hint=access_token",
            '"active":true',
        )
        self.wrk("introspection", "introspection (access token)", req)

    def userinfo(self) -> None:
        token = self.access_token()
        if token is None:
            self.skip("userinfo", "userinfo GET (bearer)", "req/s", "no access token")
            return
        req = WrkRequest(
            "/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"}, expect='"sub"'
        )
        self.wrk("userinfo", "userinfo GET (bearer)", req)

    def skip(self, key: str, label: str, unit: str, why: str) -> None:
        for conc in self.opts.concurrency:
            result = Result(key, label, conc, unit)
            result.errors[f"not measured: {why}"] += 1
            self.add(result)

    # chained / single-use requests ----------------------------------------------------
    def refresh(self) -> None:
        window = self.opts.warmup + self.opts.duration
        for conc in self.opts.concurrency:
            cc = self.result("client_credentials", conc)
            guess = cc.rate if cc and cc.rate > 0 else 2500.0
            size = int(min(60_000, max(2_000, guess * window * 1.5)))
            say(f"  issuing {size:,} refresh tokens for c={conc}")
            pool = rec.issue_refresh_tokens(self.stack, self.fixtures, size)
            job = {
                **self.host_job("token"),
                "scenario": "refresh",
                "authorization": self.fixtures.basic,
                "timeout": 10.0,
            }
            result, _ = gen_row(
                "refresh",
                "refresh_token (rotation, fresh token)",
                "req/s",
                job,
                conc,
                self.opts,
                self.meter(),
                pool,
            )
            self.add(result)

    def code_flow(self) -> None:
        client = self.fixtures.client
        verifier, challenge = pkce_pair()
        authorize = (
            f"/oauth2/authorize?response_type=code&client_id={quote(client.client_id)}"
            f"&redirect_uri={quote(client.redirect_uri, safe='')}"
            f"&scope={quote(rec.CODE_SCOPE)}&code_challenge={challenge}"
            "&code_challenge_method=S256"
        )
        token_body = (
            f"grant_type=authorization_code&redirect_uri={quote(client.redirect_uri, safe='')}"
            f"&code_verifier={verifier}&client_id={quote(client.client_id, safe='')}"
            f"&client_secret={quote(client.secret or '', safe='')}"
        )
        job = {
            **self.host_job("token"),
            "scenario": "code_flow",
            "cookies": [s.cookie for s in self.fixtures.sessions],
            "authorize_path": authorize,
            "token_body": token_body,
            "timeout": 10.0,
        }
        for conc in self.opts.concurrency:
            result, probes = gen_row(
                "code_flow",
                "code flow (authorize+exchange)",
                "flows/s",
                job,
                conc,
                self.opts,
                self.meter(),
                probes=(self.probe_job("token"),),
            )
            self.add(result)
            self.probes += [probe_result(f"token, during code flow c={conc}", probes[0])]

    def signin(self) -> None:
        if rec.challenge_via_authorize(self.stack, self.fixtures) is None:
            self.notes.append("GET /oauth2/authorize without a session gave no challenge")
        self.probes.append(probe_result("authui-api, idle", self.idle_probe("authui-api")))
        rate = self.ceilings.argon2_ceiling
        for conc in self.opts.concurrency:
            # at the ceiling a sign-in waits conc/rate s in the queue: warm up past one such
            # wait and measure at least two, so that the window holds steady-state completions
            window = None
            if conc / rate > self.opts.warmup or 2 * conc / rate > self.opts.duration:
                window = Window(
                    min(20.0, max(self.opts.warmup, conc / rate)),
                    min(30.0, max(self.opts.duration, 2 * conc / rate)),
                )
            span = (window.warmup + window.duration) if window else self.opts.duration
            size = int(max(300, rate * (span + self.opts.warmup) * 1.5 + 2 * conc))
            pool = rec.create_challenges(self.stack, self.fixtures, size)
            job = {**self.host_job("authui-api"), "scenario": "signin", "timeout": 120.0}
            result, probes = gen_row(
                "signin",
                "password sign-in POST /api/v1/auth/login",
                "sign-ins/s",
                job,
                conc,
                self.opts,
                self.meter(),
                pool,
                probes=(self.probe_job("authui-api"), self.probe_job("token")),
                window=window,
            )
            self.add(result)
            self.probes += [
                probe_result(f"authui-api, during sign-in c={conc}", probes[0]),
                probe_result(f"token (idle, control), during sign-in c={conc}", probes[1]),
            ]
        # the hash's CPU time moves between runs: measured again on the quiet machine, and
        # the lower of the two (the harder target) is used
        self.ceilings = replace(self.ceilings, argon2_cpu_again=ceiling_mod.argon2_cpu_now())

    def idle_probe(self, service: str) -> dict[str, Any]:
        job = {
            **self.probe_job(service),
            "start_at": time.time() + 0.5,
            "warmup": 0.0,
            "duration": 2.0,
        }
        return run_generators([job])[0]


SCENARIOS: dict[str, Callable[[Run], None]] = {
    "hello": Run.hello,
    "bare_sign": Run.bare_sign,
    "jwks": Run.jwks,
    "client_credentials": Run.client_credentials,
    "introspection": Run.introspection,
    "userinfo": Run.userinfo,
    "refresh": Run.refresh,
    "code_flow": Run.code_flow,
    "signin": Run.signin,
}


# --- targets and the report -------------------------------------------------------------
#: Issue 3's figures at concurrency 64 (on its machine: bare sign route ~4,300/s).
ISSUE_MINIMUM = {
    "client_credentials": 3500,
    "code_flow": 1300,
    "refresh": 1800,
    "introspection": 7500,
    "userinfo": 9000,
}
ISSUE_CC_P99_MS = 30.0


def target_of(run: Run, r: Result) -> tuple[str, bool | None]:
    """The issue's target for this row (at concurrency 64) and whether it is met.

    The figures are scaled by this machine's speed (:attr:`Run.machine_scale`): a rate
    target times the scale, the latency bound divided by it. Without the yardstick row the
    issue's figures are used as they are.
    """
    if r.key == "signin":
        need = 0.8 * run.ceilings.argon2_ceiling
        text = f">= 80% argon2 = {need:,.1f}/s"
        return text, (r.rate >= need and not r.error_count) if r.conc == 64 else None
    if r.key not in ISSUE_MINIMUM:
        return {"hello": "(ceiling)", "bare_sign": "(yardstick)"}.get(r.key, ""), None
    if r.conc != 64:
        return "", None
    scale = run.machine_scale or 1.0
    need = ISSUE_MINIMUM[r.key] * scale
    text = f">= {ISSUE_MINIMUM[r.key]:,} x {scale:.2f} = {need:,.0f}/s"
    met = r.rate >= need and not r.error_count
    if r.key == "client_credentials":
        bound = ISSUE_CC_P99_MS / scale
        text += f", p99 < {bound:.0f} ms"
        met = met and r.p99 is not None and r.p99 < bound
    return text, met


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def report_table(run: Run) -> list[str]:
    c, opts = run.ceilings, run.opts
    head = (
        f"{'scenario':<42} {'conc':>4} {'ok/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'errors':>7} {'vs hello':>8} {'gen cpu':>7} {'oth cpu':>7}  "
        f"{'target (c=64, scaled)':<38} met"
    )
    out = [
        "",
        f"IdP benchmark - {c.cores} cores, token and authui-api services with "
        f"{opts.workers} Granian workers each, measured at the service ports (no nginx)",
        f"warm-up {opts.warmup:g} s, measurement {opts.duration:g} s per row and concurrency; "
        f"load generators share the cores: wrk -t{opts.wrk_threads} (fixed requests), "
        f"{opts.procs} Python asyncio process(es) (chained/single-use rows)",
        "",
        head,
        "-" * len(head),
    ]
    for r in run.results:
        hello = run.result("hello", r.conc)
        ratio = f"{r.rate / hello.rate:.2f}" if hello and hello.rate else "-"
        target, met = target_of(run, r)
        verdict = {True: "yes", False: "NO", None: ""}[met]
        out.append(
            f"{r.label:<42} {r.conc:>4} {r.rate:>9,.0f} {ms(r.p50):>8} {ms(r.p99):>8} "
            f"{r.error_count:>7,} {ratio:>8} {r.gen_cpu:>7.2f} {r.other_cpu:>7.2f}  "
            f"{target:<38} {verdict}"
        )
    out.append(
        "ok/s: successes only (code flow: complete flows; refresh: one fresh token each); "
        "p50/p99 over successes\n(wrk rows: over every answer). gen cpu: cores the load "
        "generator used; oth cpu: cores taken by\nprocesses outside this run (another test "
        "suite on the machine lowers every figure)."
    )
    busy = [r for r in run.results if r.other_cpu > 0.25]
    if busy:
        out.append(
            f"WARNING: other processes took > 0.25 core during {len(busy)} of "
            f"{len(run.results)} rows (load average before the run: {run.load_before}); "
            "figures are lower than on an idle machine."
        )
    return out


def report_ceilings(run: Run) -> list[str]:
    c = run.ceilings
    out = ["", "ceilings (same machine, same run):"]
    for conc in run.opts.concurrency:
        hello = run.result("hello", conc)
        if hello:
            out.append(f"  hello-world GET /health/live (token), c={conc}: {hello.rate:,.0f} req/s")
    if run.machine_scale is not None:
        bare = run.yardstick
        assert bare is not None
        out.append(
            f"  yardstick: bare Litestar route signing one RS256 JWT, c=64: {bare.rate:,.0f}/s "
            "(the faster of first and last); "
            f"the issue's machine: about {ISSUE_BARE_RATE:,.0f}/s\n"
            f"    this machine = {run.machine_scale:.2f} x the issue's; rate targets are "
            f"multiplied by it, the p99 bound divided"
        )
    out += [
        f"  RS256 sign (joserfc, 2048-bit run key): {c.sign_single:,.0f}/s in one process, "
        f"{c.sign_all:,.0f}/s with {c.cores} processes",
        f"  RS256 verify: {c.verify_single:,.0f}/s in one process, "
        f"{c.verify_all:,.0f}/s with {c.cores} processes",
        f"  argon2id (m=64 MiB, t=3, p=4): one verification takes {c.argon2_seconds * 1000:.0f} ms "
        f"wall, {c.argon2_cpu_seconds * 1000:.0f} ms CPU"
        + (
            ""
            if c.argon2_cpu_again is None
            else f" ({c.argon2_cpu_again * 1000:.0f} ms CPU again after the sign-ins;"
            " the lower is used)"
        ),
        f"    ceiling = {c.cores} cores / {c.argon2_cpu_used * 1000:.0f} ms CPU = "
        f"{c.argon2_ceiling:.1f} sign-ins/s (used for the target); measured with {c.cores} "
        f"processes: {c.argon2_all:.1f}/s; cores / wall time would say "
        f"{c.argon2_wall_ceiling:.1f}/s",
    ]
    for r in run.results:
        if r.key == "signin":
            measured = r.rate / c.argon2_all if c.argon2_all else 0.0
            out.append(
                f"  password sign-in c={r.conc}: {r.rate:.1f}/s = "
                f"{r.rate / c.argon2_ceiling:.0%} of the argon2 ceiling "
                f"({measured:.0%} of the measured {c.cores}-process rate)"
            )
    if run.probes:
        out += [
            "",
            f"event-loop probe: GET /health/live every {run.opts.probe_ms:g} ms (new connection "
            "each, own process);",
            "the idle token service is the control: its latency is the machine's CPU queue,",
            "the loaded service's extra latency is its own event loop being held up:",
        ]
        for p in run.probes:
            errs = f", errors {p.errors}" if p.errors else ""
            out.append(
                f"  {p.label:<42} n={p.count:<5} p50 {ms(p.p50):>7} ms  p99 {ms(p.p99):>7} ms  "
                f"max {ms(p.worst):>7} ms{errs}"
            )
        out.append(
            "  (a loop blocked by hashing or signing shows up as hundreds of ms; n far below\n"
            f"   {1000 / run.opts.probe_ms:g} per second means the probes themselves waited "
            "that long)"
        )
    return out


def report_errors(run: Run) -> list[str]:
    details = [r for r in run.results if r.errors or r.notes]
    if not details and not run.notes:
        return []
    out = ["", "errors and notes (answers other than the expected 2xx/302 never count as ok):"]
    for r in details:
        for kind, count in r.errors.most_common():
            sample = r.samples.get(kind, "").replace("\n", " ")[:160]
            shown = f"  {sample!r}" if sample else ""
            out.append(f"  {r.label} c={r.conc}: {count:,} x {kind}{shown}")
        out += [f"  {r.label} c={r.conc}: {note}" for note in r.notes]
    out += [f"  {note}" for note in run.notes]
    return out


def print_report(run: Run) -> None:
    out = report_table(run) + report_ceilings(run) + report_errors(run) + [""]
    print("\n".join(out), flush=True)


# --- main -------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run.sh", description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=6.0, help="seconds measured per row")
    parser.add_argument("--warmup", type=float, default=1.5, help="seconds of warm-up per row")
    parser.add_argument("--concurrency", default="16,64", help="comma-separated levels")
    parser.add_argument("--workers", type=int, default=2, help="Granian workers (token, authui)")
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument("--procs", type=int, default=1, help="Python generator processes")
    parser.add_argument(
        "--users",
        type=int,
        default=64,
        help="people signing in: one per connection at c=64, as many people sign in at once; "
        "the account throttle evaluates at most 5 attempts of one account at a time",
    )
    parser.add_argument(
        "--probe-ms",
        type=float,
        default=PROBE_MS,
        help="event-loop probe interval (each probe is a new connection and takes CPU)",
    )
    parser.add_argument(
        "--only",
        default=",".join(SCENARIOS),
        help="comma-separated scenarios: " + ", ".join(SCENARIOS),
    )
    opts = parser.parse_args(argv)
    opts.concurrency = [int(x) for x in opts.concurrency.split(",") if x]
    opts.only = [x for x in opts.only.split(",") if x]
    unknown = set(opts.only) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    for first in ("bare_sign", "hello"):  # ratios need the ceiling, targets the yardstick
        if first not in opts.only:
            opts.only.insert(0, first)
    return opts


def _terminate(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    if shutil.which("wrk") is None:
        print("wrk is not installed (bash bench/run.sh installs it)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _terminate)
    base = Path(tempfile.mkdtemp(prefix="idp-bench-"))
    stack = new_stack(base)
    stack.env.update(
        {
            "SVC_TOKEN_PER_IP": RAISED_LIMIT,
            "SVC_AUTH_FAIL_PER_IP": RAISED_LIMIT,
            "SVC_LOG_LEVEL": "WARNING",
        }
    )
    load_before = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    try:
        say(f"starting an isolated stack (run {stack.run_id}) in {base}")
        start_stack(stack, workers={"token": opts.workers, "authui-api": opts.workers})
        say("creating records (API scope, client, people, browser sessions)")
        fixtures = rec.create_fixtures(stack, users=opts.users, sessions=max(opts.concurrency))
        say("measuring ceilings: RS256 sign/verify, argon2id")
        ceilings = ceiling_mod.measure(stack.key_dir)
        run = Run(stack, fixtures, opts, ceilings, load_before=load_before)
        for name, scenario in SCENARIOS.items():
            if name in opts.only:
                say(f"scenario {name}")
                scenario(run)
        if "bare_sign" in opts.only:
            say("the yardstick again, at the end")
            run.bare_sign("bare Litestar route, again at the end")
        run.notes += log_findings(stack)
        print_report(run)
        return 0
    finally:
        say(f"removing the stack (service logs kept in {LOGS.relative_to(ROOT)})")
        remove_stack(stack)
        shutil.rmtree(LOGS, ignore_errors=True)
        if (stack.work_dir / "logs").is_dir():
            shutil.copytree(stack.work_dir / "logs", LOGS)
        shutil.rmtree(base, ignore_errors=True)


def log_findings(stack: Stack) -> list[str]:
    """Tracebacks in the services' logs, counted by the exception that ended each one."""
    notes = []
    for process in stack.processes:
        try:
            lines = process.log_path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        kinds = Counter(match.group(1) for line in lines if (match := EXCEPTION_LINE.match(line)))
        tracebacks = sum(1 for line in lines if line.startswith("Traceback"))
        if tracebacks:
            found = ", ".join(f"{kind} x{n}" for kind, n in kinds.most_common(4))
            notes.append(
                f"{process.name} log: {tracebacks} traceback(s) ({found}); see "
                f"{LOGS.relative_to(ROOT)}/{process.log_path.name}"
            )
    return notes


if __name__ == "__main__":
    sys.exit(main())
