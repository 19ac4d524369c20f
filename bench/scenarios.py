"""The benchmark's scenarios on a running stack: the records each needs, and one run of
rows per scenario and concurrency."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from bench import ceilings as ceiling_mod
from bench import client_proofs as cp
from bench import records as rec
from bench.bare_sign import ISSUE_BARE_RATE
from bench.cpu import Meter
from bench.measure import (
    FORM,
    ProbeResult,
    Result,
    Window,
    WrkRequest,
    gen_row,
    probe_result,
    run_generators,
    say,
    wrk_row,
)
from tests.harness import infra
from tests.harness.records import pkce_pair
from tests.harness.stack import Stack

#: The algorithms of the ``algorithms`` scenario (PS256 costs what RS256 does: the same
#: RSA private-key operation).
SIGNING_ALGORITHM_ROWS = ("RS256", "ES256", "EdDSA")


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
            f"grant_type=client_credentials&scope={quote(self.fixtures.api_scope)}",
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
            f"&scope={quote(self.fixtures.code_scope)}&code_challenge={challenge}"
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

    def signing_algorithms(self) -> None:
        """client_credentials, refresh and the code flow again, for an API and a client
        whose tokens each algorithm signs (issue #24 item 4): RS256 set explicitly, then
        ES256 and EdDSA, beside the main rows."""
        base = self.fixtures
        for alg in SIGNING_ALGORITHM_ROWS:
            say(f"  records for {alg}")
            self.fixtures = rec.fixtures_for_alg(self.stack, base, alg)
            signed_with = rec.access_token_alg(self.stack, self.fixtures)
            if signed_with != alg:
                self.notes.append(f"the {alg} rows' access token is signed with {signed_with}")
            before = len(self.results)
            try:
                self.client_credentials()
                self.refresh()
                self.code_flow()
            finally:
                self.fixtures = base
            for result in self.results[before:]:
                result.key = f"{result.key}@{alg}"
                result.label = f"{result.label} [{alg}]"

    def sender_constrained(self) -> None:
        """client_credentials plain, DPoP-bound and with private_key_jwt (issue #25 item 4),
        on the same Python generator, each request prepared before the row; the three
        rows run one after the other at each concurrency, and the table's ratio column is
        against the plain row of the same concurrency."""
        scope = self.fixtures.api_scope
        token_url = self.stack.issuer.rstrip("/") + "/oauth2/token"
        keyed = cp.private_key_jwt_client(self.stack, (scope,))
        window = self.opts.warmup + self.opts.duration
        for conc in self.opts.concurrency:
            cc = self.result("client_credentials", conc)
            guess = cc.rate if cc and cc.rate > 0 else 2500.0
            size = int(min(40_000, max(2_000, guess * window * 1.5)))
            say(f"  preparing {size:,} requests of each kind for c={conc}")
            rows = (
                (
                    "cc_plain",
                    "client_credentials (secret_basic, prepared)",
                    None,
                    cp.plain_requests(self.fixtures.client, scope, size),
                ),
                (
                    "cc_dpop",
                    "client_credentials + DPoP proof (ES256)",
                    "DPoP",
                    cp.dpop_requests(self.fixtures.client, scope, token_url, size),
                ),
                (
                    "cc_private_key_jwt",
                    "client_credentials, private_key_jwt (ES256)",
                    None,
                    cp.assertion_requests(keyed, scope, token_url, size),
                ),
            )
            for key, label, token_type, pool in rows:
                job = {**self.host_job("token"), "scenario": "prepared_token", "timeout": 10.0}
                if token_type:
                    job["token_type"] = token_type
                result, _ = gen_row(key, label, "req/s", job, conc, self.opts, self.meter(), pool)
                self.add(result)
            plain = self.result("cc_plain", conc)
            for key in ("cc_dpop", "cc_private_key_jwt"):
                other = self.result(key, conc)
                if plain and other and plain.rate > 0:
                    self.notes.append(
                        f"c={conc}: {key} {other.rate:,.0f} req/s = "
                        f"{other.rate / plain.rate:.2f} x the plain row ({plain.rate:,.0f})"
                    )

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
    "algorithms": Run.signing_algorithms,
    "sender_constrained": Run.sender_constrained,
}
