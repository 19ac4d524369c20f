"""Memory over a million grants (issue 24 item 6): ``bash bench/run.sh --memory``
(``make bench-memory``).

Starts an isolated stack (the test harness: every service, the token and sign-in services
with two Granian workers each as ``make bench`` runs them, the per-address limits raised),
then drives a mix of grants (``bench/memory_load.py``: client_credentials, refresh with
rotation, code flows with sign-ins and logouts, userinfo, introspection, admin and entity
reads; the logouts make the logout dispatcher post to a back-channel receiver in this
process) straight at the service ports, in phases: a warm-up, then ten tenths of
``--grants``. Between two phases nothing is in flight, and it reads the memory of every
service's master and workers (``bench/memory_sample.py``: RSS, PSS, USS). Prints the RSS
of each process at the warm-up, at each tenth and at the end, its growth, and the
least-squares slope over the second half in KB per 100,000 grants, with "flat" below
``--threshold`` and "grows" above; then the same for USS and PSS. Writes the report and
the samples to ``bench/results/`` (text and JSON, with the commit and the machine) and
removes the stack, also on SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench import memory_report as report
from bench import records as rec
from bench.cpu import Meter
from bench.isolated import bench_stack, remove_bench_stack
from bench.measure import RAISED_LIMIT, ROOT, say
from bench.memory_sample import FLAT_KB_PER_100K, read, service_processes
from bench.report import log_findings
from idp_common.protocol import constants as k
from tests.harness import api, tokens
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack, start_stack

#: Of the grants: client_credentials, refresh (while the agent holds a refresh token; the
#: code flow otherwise), the code flow. After each grant: the chance of a userinfo call,
#: an introspection, one admin read, one entity read.
SHARES = {
    "client_credentials": 0.4,
    "refresh": 0.3,
    "code": 0.3,
    "userinfo": 0.25,
    "introspection": 0.25,
    "admin": 0.02,
    "entity": 0.02,
}
ADMIN_READS = (
    "/admin/users?limit=20",
    "/admin/clients?limit=20",
    "/admin/apis",
    "/admin/roles",
    "/admin/audit?limit=20",
)
ENTITY_READS = ("/entity/profile", "/entity/sessions", "/entity/connections", "/entity/permissions")
ENTITY_SCOPES = (k.SCOPE_IDP_ACCOUNT_READ, k.SCOPE_IDP_SESSIONS_READ, k.SCOPE_IDP_CONNECTIONS_READ)
TOKEN_TTL = 30 * 24 * 3600  # the admin and entity tokens outlive any run
POINTS = 10
#: The services the agents call; the logout dispatcher is reached through NATS.
LOADED = ("token", "authui-api", "admin", "entity")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run.sh --memory", description=__doc__)
    parser.add_argument("--grants", type=int, default=1_000_000, help="grants after warm-up")
    parser.add_argument(
        "--warmup-grants", type=int, default=None, help="default: 2 %% of --grants, >= 5,000"
    )
    parser.add_argument("--connections", type=int, default=32, help="agents, one person each")
    parser.add_argument("--workers", type=int, default=2, help="Granian workers (token, authui)")
    parser.add_argument(
        "--session-flows", type=int, default=100, help="code flows per session before logout"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=FLAT_KB_PER_100K,
        help="flat below this second-half slope, KB per 100,000 grants",
    )
    parser.add_argument("--seed", default="memory", help="seed of the agents' choices")
    parser.add_argument(
        "--service-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="environment of every service process (repeatable), e.g. MALLOC_ARENA_MAX=2",
    )
    parser.add_argument("--results", default=str(ROOT / "bench/results"), help="folder")
    opts = parser.parse_args(argv)
    if opts.warmup_grants is None:
        opts.warmup_grants = max(5_000, opts.grants // 50)
    if any("=" not in pair for pair in opts.service_env):
        parser.error("--service-env takes NAME=VALUE")
    if opts.grants < POINTS:
        parser.error(f"--grants must be at least {POINTS}")
    return opts


def load_job(stack: Stack, fixtures: rec.Fixtures, opts: argparse.Namespace) -> dict[str, Any]:
    client = fixtures.client
    administrator = api.create_administrator(stack, k.ADMIN_SCOPES)
    people = []
    for person in fixtures.users:
        entity_token = tokens.mint(
            stack.key_dir,
            issuer=stack.issuer,
            scopes=ENTITY_SCOPES,
            subject=person.id,
            ttl=TOKEN_TTL,
        )
        people.append([person.email, person.password, entity_token])
    redirect = quote(client.redirect_uri, safe="")
    return {
        "ports": {name: stack.service_ports[name] for name in LOADED},
        "seed": opts.seed,
        "connections": opts.connections,
        "session_flows": opts.session_flows,
        "shares": SHARES,
        "basic": fixtures.basic,
        "client_id": client.client_id,
        "cc_form": f"grant_type=client_credentials&scope={quote(rec.API_SCOPE)}",
        "authorize_path": (
            f"/oauth2/authorize?response_type=code&client_id={quote(client.client_id)}"
            f"&redirect_uri={redirect}&scope={quote(rec.REFRESH_SCOPE)}"
            "&code_challenge_method=S256"
        ),
        "code_form": f"grant_type=authorization_code&redirect_uri={redirect}",
        "people": people,
        "admin_token": tokens.mint(
            stack.key_dir,
            issuer=stack.issuer,
            scopes=k.ADMIN_SCOPES,
            subject=administrator,
            ttl=TOKEN_TTL,
        ),
        "read_paths": {"admin": list(ADMIN_READS), "entity": list(ENTITY_READS)},
    }


class Generator:
    """The load process: one phase at a time."""

    def __init__(self, job: dict[str, Any]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.memory_load"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.send(job)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def phase(self, grants: int) -> dict[str, Any]:
        self.send({"grants": grants})
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the load generator exited ({self.proc.poll()})")
        result: dict[str, Any] = json.loads(line)
        if result["grants"] < grants:
            errors = ", ".join(f"{kind} x{n}" for kind, n in result["errors"].items())
            raise RuntimeError(
                f"phase stopped at {result['grants']:,} of {grants:,} grants: {errors}\n"
                f"samples: {json.dumps(result['samples'], indent=1)}"
            )
        return result

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def wait_for_backchannel(receiver: Receiver, expected: int, seconds: float = 10.0) -> int:
    """Logout tokens received so far, once they reach ``expected`` or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while len(receiver.snapshot()) < expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return len(receiver.snapshot())


def measure(stack: Stack, receiver: Receiver, opts: argparse.Namespace) -> report.Run:
    fixtures = rec.create_fixtures(
        stack, users=opts.connections, sessions=0, backchannel_logout_uri=receiver.url
    )
    generator = Generator(load_job(stack, fixtures, opts))
    run = report.Run(opts=vars(opts).copy(), started=time.time())
    try:
        say(f"warm-up: {opts.warmup_grants:,} grants")
        run.add_phase("warm-up", 0, generator.phase(opts.warmup_grants), 0.0)
        logouts = run.phases[-1].ops.get("logout", 0)
        processes = service_processes(stack)
        run.sample("warm-up", 0, processes, read)
        root_pids = [p.popen.pid for p in stack.processes] + [generator.proc.pid]
        done = 0
        for point in range(1, POINTS + 1):
            size = opts.grants * point // POINTS - done
            with Meter(root_pids, stack.db_name) as meter:
                result = generator.phase(size)
            done += size
            label = "end" if point == POINTS else f"{point * 100 // POINTS}%"
            run.add_phase(label, done, result, meter.others)
            logouts += result["ops"].get("logout", 0)
            run.backchannel = wait_for_backchannel(receiver, logouts)
            run.logouts = logouts
            run.sample(label, done, processes, read)
            run.note_replaced(processes, service_processes(stack), label)
            say(
                f"  {label}: {done:,} grants, {result['grants'] / result['seconds']:,.0f}/s, "
                f"{sum(result['errors'].values())} errors; "
                + ", ".join(
                    f"{s.label} {s.readings[-1].rss_kb / 1024:,.0f}"
                    for s in run.series
                    if s.role == "worker"
                )
                + " MB"
            )
    finally:
        generator.stop()
    run.ended = time.time()
    return run


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    settings = {"SVC_CHALLENGE_PER_IP": RAISED_LIMIT}
    settings |= dict(pair.split("=", 1) for pair in opts.service_env)
    prepared = bench_stack("idp-bench-memory-", settings, wrk=False)
    if prepared is None:
        return 2
    base, stack = prepared
    load_before = report.loadavg()
    try:
        with Receiver() as receiver:
            say(f"starting an isolated stack (run {stack.run_id}) in {base}")
            start_stack(stack, workers={"token": opts.workers, "authui-api": opts.workers})
            run = measure(stack, receiver, opts)
        run.notes += log_findings(stack)
        run.load_before, run.load_after = load_before, report.loadavg()
        text = report.render(run, opts.threshold)
        print(text)
        written = report.save(run, text, Path(opts.results), opts.threshold)
        say("written: " + ", ".join(str(p) for p in written))
        return 0
    finally:
        remove_bench_stack(base, stack)


if __name__ == "__main__":
    sys.exit(main())
