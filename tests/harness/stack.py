"""Start and stop an isolated stack: five services under Granian and nginx in front.

Processes run the same commands an operator runs (``idp migrate``, ``idp seed``,
``idp serve <service>``, nginx with the configuration ``proxy/render.py`` writes).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

import httpx

from idp_common.crypto.keys import generate_key_file
from idp_common.crypto.secretbox import generate_key as generate_secrets_key
from tests.harness import infra
from tests.harness.process import Process
from tests.harness.replicas import assign_ports, upstream_args

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("token", "admin", "entity", "authui-api", "logout-dispatcher")
#: The algorithms besides RS256 the test stack holds a key for (issue #24).
EXTRA_ALGORITHMS = ("PS256", "ES256", "EdDSA")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
START_TIMEOUT = float(os.environ.get("IDP_TEST_START_TIMEOUT", "90"))


@dataclass
class Stack:
    """One isolated deployment. ``env`` is the SVC_* environment every process shares."""

    run_id: str
    work_dir: Path
    db_name: str
    env: dict[str, str]
    proxy_port: int
    service_ports: dict[str, int]  # the first replica of each service
    processes: list[Process] = field(default_factory=list)
    s3_port: int = 0  # the run's moto S3 server
    replica_ports: dict[str, list[int]] = field(default_factory=dict)  # every replica

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}"

    @property
    def s3_url(self) -> str:
        return f"http://127.0.0.1:{self.s3_port}"

    @property
    def issuer(self) -> str:
        return self.env["SVC_ISSUER"]

    @property
    def key_dir(self) -> Path:
        return Path(self.env["SVC_KEY_DIR"])

    @property
    def database_url(self) -> str:
        return self.env["SVC_DATABASE_URL"]

    def service_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.service_ports[name]}"

    def ports_of(self, name: str) -> list[int]:
        """The port of every replica of ``name``, the first replica first."""
        return self.replica_ports.get(name) or [self.service_ports[name]]

    # --- processes -------------------------------------------------------------------
    def idp(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run the operator tool with this stack's settings."""
        return subprocess.run(
            [sys.executable, "-m", "idp_common.operations.cli", *args],
            env={**os.environ, **self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def spawn(self, name: str, command: list[str], port: int, env: dict[str, str]) -> Process:
        log_path = self.work_dir / "logs" / f"{name}-{port}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("wb") as log:
            popen = subprocess.Popen(
                command,
                env={**os.environ, **env},
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                start_new_session=True,
            )
        process = Process(name, popen, log_path, port)
        self.processes.append(process)
        return process

    def start_service(
        self,
        name: str,
        overrides: dict[str, str] | None = None,
        port: int | None = None,
        workers: int | None = None,
    ) -> Process:
        """``idp serve NAME``; ``workers`` adds ``--workers N`` (default: the tool's, one)."""
        port = port or infra.free_port()
        command = [sys.executable, "-m", "idp_common.operations.cli", "serve", name]
        command += ["--port", str(port)]
        if workers is not None:
            command += ["--workers", str(workers)]
        return self.spawn(name, command, port, {**self.env, **(overrides or {})})

    @contextmanager
    def extra_service(self, name: str, overrides: dict[str, str]) -> Iterator[str]:
        """Another ``name`` service with ``overrides``, up while the block runs; its URL."""
        process = self.start_service(name, overrides)
        try:
            self.wait_until_up(process)
            yield process.url
        finally:
            process.stop()
            self.processes.remove(process)

    def start_proxy(
        self,
        *,
        name: str = "proxy",
        port: int | None = None,
        extra_args: tuple[str, ...] = (),
        upstreams: Mapping[str, list[int]] | None = None,
    ) -> Process:
        """nginx in front of every replica, or of the ports ``upstreams`` names for a service."""
        port = port or infra.free_port()
        run_dir = self.work_dir / f"{name}-{port}"
        render = [
            sys.executable,
            str(ROOT / "proxy/render.py"),
            "--run-dir",
            str(run_dir),
            "--listen",
            f"127.0.0.1:{port}",
            "--foreground",
            *upstream_args(self, upstreams or {}),
            *("--avatar-max-bytes", self.env["SVC_AVATAR_MAX_BYTES"]),
            *_console_dist(),
            *extra_args,
        ]
        conf = subprocess.run(render, check=True, capture_output=True, text=True).stdout.strip()
        subprocess.run([NGINX, "-t", "-q", "-c", conf], check=True, capture_output=True)
        return self.spawn(name, [NGINX, "-c", conf], port, {})

    def wait_until_up(self, process: Process, path: str = "/health/ready") -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.popen.poll() is not None:
                raise RuntimeError(f"{process.name} exited:\n{process.log_tail()}")
            try:
                if httpx.get(process.url + path, timeout=2).status_code < 500:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{process.name} not up after {START_TIMEOUT}s:\n{process.log_tail()}")

    def stop_all(self) -> None:
        for process in reversed(self.processes):
            process.stop()
        self.processes.clear()


def _console_dist() -> tuple[str, ...]:
    """``IDP_TEST_CONSOLE_DIST`` serves another build of the console (one per developer
    building in parallel); by default the proxy serves ``web/console/dist``."""
    other = os.environ.get("IDP_TEST_CONSOLE_DIST")
    return ("--console-dist", other) if other else ()


def start_with_mail_catcher(stack: Stack, service: str, mail_dir: Path) -> Process:
    """The mail catcher (``idp mail-catcher``) on a free port writing into ``mail_dir``, and
    one more ``service`` process that sends its mail there, up and ready. Both are added to
    ``stack.processes`` (the ``extra_processes`` fixture stops them after the test)."""
    port = infra.free_port()
    command = [
        sys.executable,
        "-m",
        "idp_common.operations.cli",
        "mail-catcher",
        "--port",
        str(port),
    ]
    stack.spawn("mail-catcher", [*command, "--dir", str(mail_dir)], port, stack.env)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    process = stack.start_service(service, {"SVC_SMTP_URL": f"smtp://127.0.0.1:{port}"})
    stack.wait_until_up(process)
    return process


#: Under pytest-xdist (scripts/test.sh) each worker runs a stack beside the others' on the
#: machine's one PostgreSQL (max_connections 100 by default): each process of a worker's
#: stack opens at most 4 + 6 connections instead of 10 + 16. The tests that send many
#: requests at once are marked ``alone`` and run afterwards with the defaults.
PARALLEL_POOL_SIZES: Final = {"SVC_DB_POOL_SIZE": "4", "SVC_DB_HOT_POOL_SIZE": "6"}


def _parallel_pool_sizes() -> dict[str, str]:
    return dict(PARALLEL_POOL_SIZES) if os.environ.get("PYTEST_XDIST_WORKER") else {}


def new_stack(base_dir: Path) -> Stack:
    run_id = infra.run_id()
    work_dir = base_dir / f"stack-{run_id}"
    work_dir.mkdir(parents=True)
    proxy_port = infra.free_port()
    ports = {name: infra.free_port() for name in SERVICES}
    db_name = f"idp_t_{run_id}"
    s3_port = infra.free_port()
    env = {
        "SVC_ENV": "dev",
        "SVC_ISSUER": f"http://127.0.0.1:{proxy_port}",
        "SVC_DATABASE_URL": infra.database_url(db_name),
        "SVC_REDIS_URL": infra.REDIS_URL,
        "SVC_REDIS_PREFIX": f"idp_t_{run_id}:",
        "SVC_NATS_URL": infra.NATS_URL,
        "SVC_NATS_PREFIX": f"t{run_id}",
        "SVC_KEY_DIR": str(work_dir / "keys"),
        "SVC_SMTP_URL": f"smtp://127.0.0.1:{infra.closed_port()}",
        "SVC_FORWARDED_ALLOW_IPS": "127.0.0.1/32",
        "SVC_AVATAR_MAX_BYTES": str(5 * 1024 * 1024),
        "SVC_AUTH_FAIL_PER_IP": "20",
        # Receivers of the suite listen on 127.0.0.1 (docs/security.md "Back-channel targets").
        "SVC_BACKCHANNEL_ALLOW_PRIVATE": "true",
        # The private_key_jwt tests serve a client's jwks_uri on 127.0.0.1 (issue #25).
        "SVC_CLIENT_JWKS_ALLOW_PRIVATE": "true",
        # Webhook receivers of the suite listen on 127.0.0.1 too, and retries come quickly
        # (issue #27: 0.5 s, 1 s, 2 s ... for 20 s; docs/webhooks.md "Retries").
        "SVC_WEBHOOK_ALLOW_PRIVATE": "true",
        "SVC_WEBHOOK_RETRY_BASE_SECONDS": "0.5",
        "SVC_WEBHOOK_RETRY_MAX_DELAY_SECONDS": "4",
        "SVC_WEBHOOK_RETRY_FOR_SECONDS": "20",
        # The browser tests sign in with faces from one address (the proxy's); the attack
        # test of the limit runs a service of its own with the default (10).
        "SVC_FACE_PER_IP": "1000",
        # The device-flow tests poll every second (RFC 8628 §3.5 interval; default 5).
        "SVC_DEVICE_POLL_INTERVAL": "1",
        "SVC_ACTIVITY_FLUSH_SECONDS": "1",
        "SVC_LOG_LEVEL": "WARNING",
        "SVC_SHUTDOWN_DRAIN_SECONDS": "0.1",  # no balancer to tell: stop at once on SIGTERM
        "SVC_SECRETS_KEY": generate_secrets_key(),
        **infra.s3_env(s3_port, run_id),
        **_parallel_pool_sizes(),
    }
    return Stack(run_id, work_dir, db_name, env, proxy_port, ports, s3_port=s3_port)


def start_stack(
    stack: Stack,
    workers: Mapping[str, int] | None = None,
    replicas: Mapping[str, int] | None = None,
    proxy_args: tuple[str, ...] = (),
) -> None:
    """Database, signing keys (two RS256, an older and a newer, and one each of PS256, ES256
    and EdDSA: issue #24), migrate, seed, services, proxy.

    ``workers`` / ``replicas`` map a service name to its Granian worker count / its number
    of processes behind the proxy (others: one); ``proxy_args`` go to proxy/render.py.
    """
    assign_ports(stack, replicas)
    # Photos: a moto S3 server, stopped with the stack; it starts while the database migrates.
    s3 = stack.spawn("s3", infra.s3_server_command(stack.s3_port), stack.s3_port, {})
    infra.run(infra.create_database(stack.db_name))
    now = datetime.now(UTC)
    generate_key_file(stack.key_dir, now=now - timedelta(days=1), bits=2048)
    generate_key_file(stack.key_dir, now=now, bits=2048)
    for alg in EXTRA_ALGORITHMS:
        generate_key_file(stack.key_dir, now=now - timedelta(days=1), alg=alg)
    for args in (("migrate",), ("seed",)):
        result = stack.idp(*args)
        if result.returncode != 0:
            raise RuntimeError(f"idp {args[0]} failed:\n{result.stdout}\n{result.stderr}")
    started = [
        stack.start_service(name, port=port, workers=(workers or {}).get(name))
        for name in SERVICES
        for port in stack.ports_of(name)
    ]
    proxy = stack.start_proxy(port=stack.proxy_port, extra_args=proxy_args)
    stack.wait_until_up(s3, "/")
    for process in started:
        stack.wait_until_up(process)
    stack.wait_until_up(proxy, "/console/")


@contextmanager
def running_stack(base_dir: Path, env: Mapping[str, str] | None = None) -> Iterator[Stack]:
    """A new stack (``env`` overriding its settings), started, and removed afterwards."""
    stack = new_stack(base_dir)
    stack.env.update(env or {})
    try:
        start_stack(stack)
        yield stack
    finally:
        remove_stack(stack)


def remove_stack(stack: Stack) -> None:
    stack.stop_all()
    infra.run(infra.drop_database(stack.db_name))
    infra.run(infra.delete_redis_prefix(stack.env["SVC_REDIS_PREFIX"]))
    infra.run(infra.delete_nats_stream(f"T{stack.run_id.upper()}_EVENTS"))
