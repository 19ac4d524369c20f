"""A NATS server of a test's own (JetStream on, its store in the test's folder), for tests
that stop and restart NATS without touching the machine's server other runs share."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.harness import infra

NATS_SERVER = shutil.which("nats-server") or "/usr/sbin/nats-server"


class NatsServer:
    def __init__(self, store_dir: Path) -> None:
        self.store_dir = store_dir
        self.port = infra.free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start (or start again, same port and store: the stream survives)."""
        self.store_dir.mkdir(parents=True, exist_ok=True)
        command = [NATS_SERVER, "-a", "127.0.0.1", "-p", str(self.port), "-js"]
        with (self.store_dir.parent / f"nats-{self.port}.log").open("ab") as log:
            self._process = subprocess.Popen(
                [*command, "-sd", str(self.store_dir)],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline or self._process.poll() is not None:
                    raise RuntimeError("nats-server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(5)
        self._process = None
