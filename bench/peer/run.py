"""Side by side with node-oidc-provider in one run (``make bench-peer``, issue 24 item 1).

Starts the run's stack (the test harness: token service with two Granian workers, its own
database, Redis prefix and keys), two peer clusters (``bench/peer/server.mjs``: mem and pg
adapters, two workers each) and one nginx in front of all three (``bench/peer/proxy.py``);
makes the records every row starts from; then measures each row, ``--runs`` times, the
systems alternating (ours through the proxy, ours at the token service's port, peer mem,
peer pg, the order rotated from run to run); prints one table, writes it with a JSON copy
to ``bench/results/``, and removes everything it started.
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from bench import records as rec
from bench.cpu import ProcessClass
from bench.isolated import bench_stack
from bench.measure import say
from bench.peer import node, proxy, report
from bench.peer.systems import (
    FLOOR_REDIRECT,
    FLOOR_ROWS,
    ROWS,
    SPARE_REFRESH,
    Measurement,
    System,
    code_job,
    measure,
    ours_code_job,
    peer_code_job,
)
from tests.harness import infra
from tests.harness.process import Process
from tests.harness.stack import SERVICES, Stack, remove_stack, start_stack

PEOPLE = 64
REDIS = ProcessClass(commands=("redis-server",))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bash bench/run.sh --peer", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--runs", type=int, default=3, help="runs per row and system")
    parser.add_argument("--duration", type=float, default=6.0, help="seconds measured per run")
    parser.add_argument("--warmup", type=float, default=1.5, help="seconds of warm-up per run")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2, help="workers of each side")
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument("--procs", type=int, default=1, help="Python generator processes")
    parser.add_argument(
        "--only", default=",".join(key for key, _, _ in ROWS), help="comma-separated rows"
    )
    parser.add_argument(
        "--systems",
        default="ours,ours_direct,peer_mem,peer_pg,floor",
        help="comma-separated systems",
    )
    parser.add_argument(
        "--peer-accounts",
        choices=("db", "memory"),
        default="db",
        help="where the pg peer's findAccount reads people (mem always: memory)",
    )
    parser.add_argument(
        "--out", default=str(report.RESULTS), help="folder for the table and the JSON"
    )
    opts = parser.parse_args(argv)
    opts.only = [x for x in opts.only.split(",") if x]
    opts.systems = [x for x in opts.systems.split(",") if x]
    return opts


def openssl_sign_rate() -> float | None:
    """RSA-2048 signatures per second in one process (``openssl speed -seconds 2 rsa2048``)."""
    out = subprocess.run(
        ["openssl", "speed", "-seconds", "2", "rsa2048"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    for line in out.splitlines():
        if line.startswith("rsa 2048 bits") or line.startswith("rsa  2048 bits"):
            return float(line.split()[5])
    return None


def ours(stack: Stack, fixtures: rec.Fixtures, proxy_pid: int, proxy_port: int) -> list[System]:
    """The token service through the proxy, and at its own port."""
    token, how = rec.access_token_from_endpoint(stack, fixtures)
    if token is None:
        raise RuntimeError(f"no access token from the token service: {how}")
    services = tuple(p.popen.pid for p in stack.processes if p.name in SERVICES)
    classes = {
        "server": ProcessClass(roots=services),
        "postgres": ProcessClass(databases=(stack.db_name,)),
        "redis": REDIS,
    }

    def system(key: str, label: str, port: int, proxy_class: ProcessClass) -> System:
        return System(
            key,
            label,
            port,
            {**classes, "proxy": proxy_class},
            fixtures.basic,
            f"grant_type=client_credentials&scope={rec.API_SCOPE}",
            token,
            lambda n: rec.issue_refresh_tokens(stack, fixtures, n),
            "",
            ours_code_job(fixtures),
        )

    return [
        system("ours", "ours (proxy)", proxy_port, ProcessClass(roots=(proxy_pid,))),
        system("ours_direct", "ours (direct)", stack.service_ports["token"], ProcessClass()),
    ]


def floor_system(proxy_pid: int, proxy_port: int, floor_pid: int) -> System:
    """The Python floor (``bench/peer/floor.py``) through the proxy, on the signing rows."""
    return System(
        "floor",
        "py floor",
        proxy_port,
        {
            "server": ProcessClass(roots=(floor_pid,)),
            "postgres": ProcessClass(),
            "redis": REDIS,
            "proxy": ProcessClass(roots=(proxy_pid,)),
        },
        "Basic Zmxvb3I6Zmxvb3I=",  # floor:floor, never checked
        "grant_type=client_credentials",
        "",
        lambda n: [secrets.token_urlsafe(32) for _ in range(n)],
        "",
        {**code_job("floor-client", "floor", FLOOR_REDIRECT, "openid", None), "cookies": ["f=1"]},
        rows=FLOOR_ROWS,
    )


def start_floor(stack: Stack, workers: int) -> Process:
    port = infra.free_port()
    command = [sys.executable, "-m", "bench.peer.floor", str(stack.key_dir), str(port)]
    process = stack.spawn("py-floor", [*command, str(workers)], port, {})
    stack.wait_until_up(process, "/")
    return process


def peer_system(peer: node.Peer, proxy_pid: int, proxy_port: int) -> System:
    assert peer.process is not None
    pool = iter(peer.refresh_tokens)

    def take(n: int) -> list[str]:
        return [token for _, token in zip(range(n), pool, strict=False)]

    return System(
        f"peer_{peer.adapter}",
        f"peer {peer.adapter}",
        proxy_port,
        {
            "server": ProcessClass(roots=(peer.process.popen.pid,)),
            "postgres": ProcessClass(databases=(peer.db_name,) if peer.db_name else ()),
            "redis": REDIS,
            "proxy": ProcessClass(roots=(proxy_pid,)),
        },
        peer.basic,
        f"grant_type=client_credentials&scope={node.API_SCOPE}&resource={peer.resource}",
        peer.userinfo_token,
        take,
        f"&resource={peer.resource}",
        peer_code_job(peer),
    )


class _Stop:
    """SIGINT and SIGTERM end the run through its cleanup, once: a Ctrl-C reaches Python
    twice (from the terminal, and forwarded by ``uv run``), and a second one must not cut
    the cleanup short (it left the stack running)."""

    def __init__(self) -> None:
        self.stopping = False

    def __call__(self, signum: int, _frame: object) -> None:
        if self.stopping:
            return
        self.stopping = True
        raise SystemExit(128 + signum)

    def install(self) -> None:
        signal.signal(signal.SIGINT, self)
        signal.signal(signal.SIGTERM, self)


def measure_all(systems: list[System], opts: argparse.Namespace) -> list[Measurement]:
    """Every row, ``opts.runs`` times, the systems alternating (the order rotated per run)."""
    measurements: list[Measurement] = []
    for row, _, _ in ROWS:
        if row not in opts.only:
            continue
        for run in range(opts.runs):
            turn = run % len(systems)
            for system in systems[turn:] + systems[:turn]:
                if not system.measures(row):
                    continue
                m = measure(row, system, opts, run, opts.concurrency)
                errors = f", {m.result.error_count} errors" if m.result.error_count else ""
                say(
                    f"  {row} run {run + 1} {system.label}: "
                    f"{m.result.rate:,.0f} {m.result.unit}{errors}"
                )
                measurements.append(m)
    return measurements


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    node.ensure_installed()
    prepared = bench_stack("idp-peer-")
    if prepared is None:
        return 2
    base, stack = prepared
    stop = _Stop()
    stop.install()
    peers: list[node.Peer] = []
    try:
        say(f"starting an isolated stack (run {stack.run_id}) in {base}")
        start_stack(stack, workers={"token": opts.workers, "authui-api": opts.workers})
        fixtures = rec.create_fixtures(stack, users=PEOPLE, sessions=opts.concurrency)
        proxy_port = infra.free_port()
        peer_ports = {name: infra.free_port() for name in ("mem", "pg")}
        for adapter in ("mem", "pg"):
            issuer = f"http://127.0.0.1:{peer_ports[adapter]}"
            peers.append(node.new_peer(adapter, issuer, opts.workers, stack.run_id))
        floor = start_floor(stack, opts.workers)
        floor_port = infra.free_port()
        upstreams = {p.adapter: (peer_ports[p.adapter], p.ports) for p in peers}
        upstreams["floor"] = (floor_port, [floor.port])
        nginx = proxy.start(stack, proxy_port, upstreams)
        refresh_pool = opts.runs * (opts.concurrency + SPARE_REFRESH)
        for peer in peers:
            say(f"starting the peer ({peer.adapter}) and signing {opts.concurrency} people in")
            node.start(stack, peer, PEOPLE, opts.peer_accounts)
            node.set_up(peer, peer.issuer, opts.concurrency, refresh_pool, PEOPLE)
            node.end_setup(peer)
        systems = ours(stack, fixtures, nginx.popen.pid, proxy_port)
        systems += [peer_system(p, nginx.popen.pid, peer_ports[p.adapter]) for p in peers]
        systems.append(floor_system(nginx.popen.pid, floor_port, floor.popen.pid))
        systems = [s for s in systems if s.key in opts.systems]
        say("OpenSSL RSA-2048 signatures per second, one process")
        sign_before = openssl_sign_rate()
        measurements = measure_all(systems, opts)
        sign_after = openssl_sign_rate()
        per_worker = {f"peer {p.adapter}": node.stop(stack, p) for p in peers}
        table = report.Table(opts, systems, measurements, (sign_before, sign_after), per_worker)
        text = report.render(table)
        print(text, flush=True)
        paths = report.write(table, text, Path(opts.out), node.versions())
        say(f"written: {', '.join(str(p) for p in paths)}")
        return 0
    finally:
        stop.stopping = True  # from here on, signals no longer interrupt
        say("removing the stack, the peers and their database")
        for peer in peers:
            node.stop(stack, peer)
        remove_stack(stack)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
