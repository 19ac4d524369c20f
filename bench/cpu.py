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
from dataclasses import dataclass, field
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


def _tree(procs: dict[int, tuple[int, float, str]], root_pids: list[int]) -> set[int]:
    """The processes under ``root_pids`` (the roots included)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    todo = [pid for pid in root_pids if pid in procs]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, [])
    return found


def _backends(procs: dict[int, tuple[int, float, str]], db_name: str) -> set[int]:
    """The PostgreSQL backends serving ``db_name`` (their command line names it)."""
    return {
        pid for pid, (_, _, cmd) in procs.items() if cmd.startswith("postgres:") and db_name in cmd
    }


def run_cpu_seconds(root_pids: list[int], db_name: str) -> float:
    """CPU seconds of the processes under ``root_pids`` and the backends of ``db_name``."""
    procs = _processes()
    ours = _tree(procs, root_pids) | _backends(procs, db_name)
    own = resource.getrusage(resource.RUSAGE_SELF)
    return sum(procs[pid][1] for pid in ours) + own.ru_utime + own.ru_stime + children_seconds()


@dataclass(frozen=True)
class ProcessClass:
    """A kind of process whose CPU a row reports: process trees, the PostgreSQL backends of
    databases, and processes whose command line starts with one of ``commands``."""

    roots: tuple[int, ...] = ()
    databases: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()


def class_cpu_seconds(classes: dict[str, ProcessClass]) -> dict[str, float]:
    """CPU seconds so far of each class (a process counted in two classes counts twice)."""
    procs = _processes()
    out = {}
    for name, kind in classes.items():
        pids = _tree(procs, list(kind.roots))
        for db_name in kind.databases:
            pids |= _backends(procs, db_name)
        pids |= {
            pid
            for pid, (_, _, cmd) in procs.items()
            if any(cmd.startswith(prefix) for prefix in kind.commands)
        }
        out[name] = sum(procs[pid][1] for pid in pids)
    return out


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


@dataclass
class ClassMeter(Meter):
    """A :class:`Meter` that also keeps the CPU seconds each class of process used across
    the block, and the load generators' (this process's finished children) as
    ``"load generator"``."""

    classes: dict[str, ProcessClass] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def __enter__(self) -> ClassMeter:
        super().__enter__()
        self._before = class_cpu_seconds(self.classes)
        self._children = children_seconds()
        return self

    def __exit__(self, *exc: object) -> None:
        after = class_cpu_seconds(self.classes)
        children = children_seconds()
        super().__exit__(*exc)
        self.seconds = {name: after[name] - self._before[name] for name in self.classes}
        self.seconds["load generator"] = children - self._children
