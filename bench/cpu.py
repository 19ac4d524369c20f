"""Who used the CPU during a measurement: this run, or other processes on the machine.

The benchmark shares the machine's cores with whatever else runs there (a test suite, a
build). Each row records the CPU time of the whole machine (``/proc/stat``) and that of
this run: the stack's service processes and their workers, the PostgreSQL backends of
the run's database, the generators (finished children) and this process. The rest,
divided by the row's wall time, is the number of cores other processes took.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
PROC = Path("/proc")


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (user, nice, system, irq, softirq, steal)."""
    fields = (PROC / "stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    return (user + nice + system + irq + softirq + steal) / TICK


def _processes() -> dict[int, tuple[int, float, str]]:
    """pid → (parent pid, CPU seconds, command line) of every live process."""
    found: dict[int, tuple[int, float, str]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2 :].split()  # fields after "(comm)"
        ppid, utime, stime = int(rest[1]), int(rest[11]), int(rest[12])
        found[int(entry.name)] = (ppid, (utime + stime) / TICK, cmdline)
    return found


def run_cpu_seconds(root_pids: list[int], db_name: str) -> float:
    """CPU seconds of the processes under ``root_pids`` and the backends of ``db_name``."""
    procs = _processes()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    ours: set[int] = set()
    todo = [pid for pid in root_pids if pid in procs]
    while todo:
        pid = todo.pop()
        if pid not in ours:
            ours.add(pid)
            todo += children.get(pid, [])
    ours |= {
        pid for pid, (_, _, cmd) in procs.items() if cmd.startswith("postgres:") and db_name in cmd
    }
    own = resource.getrusage(resource.RUSAGE_SELF)
    return sum(procs[pid][1] for pid in ours) + own.ru_utime + own.ru_stime + children_seconds()


def children_seconds() -> float:
    """CPU seconds of this process's finished children (wrk, the generator processes)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


@dataclass
class Meter:
    """Cores used by this run and by other processes across a block."""

    root_pids: list[int]
    db_name: str
    ours: float = 0.0
    others: float = 0.0
    generator: float = 0.0

    def __enter__(self) -> Meter:
        self._wall = time.monotonic()
        self._busy = machine_busy_seconds()
        self._run = run_cpu_seconds(self.root_pids, self.db_name)
        self._gen = children_seconds()
        return self

    def __exit__(self, *_: object) -> None:
        wall = max(1e-9, time.monotonic() - self._wall)
        busy = machine_busy_seconds() - self._busy
        run = run_cpu_seconds(self.root_pids, self.db_name) - self._run
        self.ours = run / wall
        self.others = max(0.0, busy - run) / wall
        self.generator = (children_seconds() - self._gen) / wall
