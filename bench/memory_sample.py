"""The memory of the stack's service processes, read from ``/proc``, and its trend.

Each service runs as a Granian master (``idp serve NAME``) with its workers as children
(``tests.harness.process.children``), and a worker may have children of its own: the face
engine's model processes (``idp_common.face.engine``, a process pool started with the
app), "helpers" here. For each process: RSS (``VmRSS`` of
``/proc/PID/status``), and from ``/proc/PID/smaps_rollup`` PSS (shared pages divided among
the processes that map them) and USS (``Private_Clean + Private_Dirty``: what the process
alone holds, what would be freed if it exited). All in KB.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.harness.process import children
from tests.harness.stack import SERVICES, Stack

#: A process whose RSS rises by less than this over the second half, in KB per 100,000
#: grants, is "flat": 1 MB per 100k grants is ~10 bytes a grant. A leak of one small
#: object per token request (64 bytes, the smallest a Python object with a dict entry
#: keeping it takes) in a worker serving half of them would show ~3 MB per 100k.
FLAT_KB_PER_100K = 1024.0
PER = 100_000


@dataclass(frozen=True)
class ServiceProcess:
    label: str  # "token worker 1"
    service: str
    role: str  # "master", "worker" or "helper"
    pid: int


@dataclass(frozen=True)
class Reading:
    pid: int
    rss_kb: int
    pss_kb: int
    uss_kb: int


def service_processes(stack: Stack) -> list[ServiceProcess]:
    """Every service's master and its workers (lowest pid first), in the order of SERVICES."""
    found = []
    for name in SERVICES:
        for process in stack.processes:
            if process.name != name or process.popen.poll() is not None:
                continue
            master = process.popen.pid
            found.append(ServiceProcess(f"{name} master", name, "master", master))
            for n, pid in enumerate(sorted(children(master)), start=1):
                found.append(ServiceProcess(f"{name} worker {n}", name, "worker", pid))
                for m, helper in enumerate(sorted(children(pid)), start=1):
                    label = f"{name} worker {n} helper {m}"
                    found.append(ServiceProcess(label, name, "helper", helper))
    return found


def _kb_fields(path: Path, names: Iterable[str]) -> dict[str, int]:
    wanted = set(names)
    values: dict[str, int] = {}
    for line in path.read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in wanted:
            values[key] = int(rest.split()[0])
    return values


def read(pid: int) -> Reading | None:
    """The process's memory now, or None when it is gone."""
    proc = Path("/proc") / str(pid)
    try:
        status = _kb_fields(proc / "status", ("VmRSS",))
        rollup = _kb_fields(proc / "smaps_rollup", ("Pss", "Private_Clean", "Private_Dirty"))
    except (OSError, ValueError):
        return None
    uss = rollup.get("Private_Clean", 0) + rollup.get("Private_Dirty", 0)
    return Reading(pid, status.get("VmRSS", 0), rollup.get("Pss", 0), uss)


def slope_per_100k(points: Sequence[tuple[int, float]]) -> float | None:
    """Least-squares slope of (grants, KB) points, in KB per 100,000 grants."""
    if len(points) < 2:
        return None
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in points)
    return sxy / sxx * PER


def verdict(slope: float | None, threshold: float = FLAT_KB_PER_100K) -> str:
    if slope is None:
        return "n/a"
    return "flat" if slope < threshold else "grows"
