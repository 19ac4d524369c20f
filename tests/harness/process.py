"""A process of the stack (service, proxy, helper server): its port, log and stop."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Process:
    name: str
    popen: subprocess.Popen[bytes]
    log_path: Path
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """SIGTERM to the process (a Granian master drains and stops its workers), SIGKILL
        after 10 s; then SIGKILL to what is left of its process group (``Stack.spawn``
        starts each in a session of its own): a master killed while a worker was starting
        would otherwise leave that worker running for ever."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)


def children(pid: int) -> set[int]:
    """Process ids whose parent is ``pid`` (read from /proc): a Granian master's workers.
    multiprocessing's resource tracker is not a worker and is left out."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid and b"resource_tracker" not in cmdline:
            found.add(int(entry.name))
    return found
