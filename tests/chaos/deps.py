"""PostgreSQL and Redis of the run's own, on free ports, that a fault may stop and start.

The machine's servers (5432, 6379, 4222) are shared with every other run and are never
touched. PostgreSQL refuses to run as root, so its cluster belongs to the ``postgres``
user and ``initdb``/``pg_ctl`` run as that user (``runuser``) when the runner is root.
Redis keeps an append-only file in the run's folder, as the deployed Redis does
(deploy/redis/idp-redis.conf), so a stop and start loses no session: the fault is the
outage, not a wiped store.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.harness import infra


def wait_listening(port: int, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start on port {port}") from None
            time.sleep(0.1)


def _pg_bin() -> Path:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: p.parts)
    if not versions:
        found = shutil.which("pg_ctl")
        if found is None:
            raise RuntimeError("pg_ctl not found (apt-get install postgresql)")
        return Path(found).parent
    return versions[-1].parent


class OwnPostgres:
    """A cluster in ``base/pg`` owned by ``postgres``, trust auth, 127.0.0.1 only."""

    def __init__(self, base: Path) -> None:
        self.dir = base / "pg"
        self.data = self.dir / "data"
        self.port = infra.free_port()
        self.bin = _pg_bin()

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_owner(self, *command: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run(
            [*prefix, *command], capture_output=True, text=True, timeout=120, check=False
        )

    def init(self) -> None:
        self.dir.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            parent = self.dir.parent
            parent.chmod(parent.stat().st_mode | 0o711)  # postgres must reach its folder
        result = self._as_owner(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
            "--auth=trust", "--no-sync", "-E", "UTF8",
        )  # fmt: skip
        if result.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{result.stdout}\n{result.stderr}")
        self.start()

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c max_connections=300"
        )
        result = self._as_owner(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"),
            "-o", options, "-w", "-t", "60", "start",
        )  # fmt: skip
        if result.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed:\n{result.stdout}\n{result.stderr}")

    def stop(self) -> None:
        self._as_owner(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")


class OwnRedis:
    """``redis-server`` on a free port, append-only file in ``base/redis``."""

    def __init__(self, base: Path) -> None:
        self.dir = base / "redis"
        self.port = infra.free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        command = [
            shutil.which("redis-server") or "/usr/bin/redis-server",
            "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.dir),
            "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
        ]  # fmt: skip
        with (self.dir / "redis.log").open("ab") as log:
            self._process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_listening(self.port, 20, "redis-server")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()  # SIGTERM: Redis writes its append-only file and exits
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(5)
        self._process = None
