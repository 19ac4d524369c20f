"""The multiprocess directory of one replica, and the workers that died.

prometheus-client's multiprocess mode keeps each worker's values in files named by its
pid inside ``PROMETHEUS_MULTIPROC_DIR``; ``/metrics`` sums them. ``idp serve`` gives each
replica (one Granian master and its workers) a fresh directory (:func:`use_replica_dir`)
before the workers start, and removes it when the master exits: values of a previous run
must not be added to this one's.

A worker that dies (SIGKILL, the OOM killer) is replaced by Granian, which offers no hook
for it. Its counters and histograms stay in the sum, as they should (totals never go back);
its *live* gauges (the pool gauges) must not. So every scrape, and every worker at
start-up, first calls :func:`prune_dead_workers`: a pid whose live-gauge file is in the
directory but which is no longer a running child of this replica's master is marked dead
(``mark_process_dead`` deletes its live-gauge files). Linux's ``/proc`` tells parent and
state; elsewhere a pid that exists counts as alive.

prometheus-client picks its mode when ``prometheus_client.values`` is first imported, and a
forked worker inherits the master's modules: this module imports it only inside the
function that needs it, so ``idp serve`` (the master) never has it before the directory
is named.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Final

__all__ = [
    "MULTIPROC_ENV",
    "create_replica_dir",
    "live_gauge_pids",
    "prune_dead_workers",
    "remove_replica_dir",
    "use_replica_dir",
]

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
_PREFIX: Final = "idp-metrics-"
_REPLICA_DIR: Final = re.compile(r"idp-metrics-[a-z-]+-(\d+)-[^/]+")
_LIVE_GAUGE_FILE: Final = re.compile(r"gauge_live[a-z]+_(\d+)\.db")
_HAS_PROC: Final = os.path.exists("/proc/self/stat")


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, someone else's
        return True
    return True


def create_replica_dir(base: str, service: str) -> Path:
    """A new, empty directory for this replica under ``base`` (the temp folder when
    empty), named after the service and this process (the master). Directories left by
    masters that no longer run (killed with SIGKILL) are removed first."""
    parent = Path(base) if base else Path(tempfile.gettempdir())
    parent.mkdir(parents=True, exist_ok=True)
    for stale in parent.glob(_PREFIX + "*"):
        match = _REPLICA_DIR.fullmatch(stale.name)
        if match and stale.is_dir() and not _running(int(match.group(1))):
            shutil.rmtree(stale, ignore_errors=True)
    prefix = f"{_PREFIX}{service}-{os.getpid()}-"
    return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))


def remove_replica_dir(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)


def use_replica_dir(base: str, service: str) -> Path:
    """:func:`create_replica_dir`, named in ``PROMETHEUS_MULTIPROC_DIR`` for the workers this
    process starts (forked or spawned, they inherit it), and removed when this process
    exits (``atexit``: a forked worker leaves through ``os._exit`` and runs none)."""
    if "prometheus_client.values" in sys.modules:  # it chose its mode at import
        raise RuntimeError("prometheus_client was imported before its directory was set")
    directory = create_replica_dir(base, service)
    os.environ[MULTIPROC_ENV] = str(directory)
    atexit.register(remove_replica_dir, directory)
    return directory


def live_gauge_pids(directory: Path) -> set[int]:
    """Pids that have live-gauge files in ``directory``."""
    found = set()
    for entry in os.listdir(directory):
        match = _LIVE_GAUGE_FILE.fullmatch(entry)
        if match:
            found.add(int(match.group(1)))
    return found


def _is_sibling_worker(pid: int, master: int) -> bool:
    """``pid`` runs (not a zombie) and ``master`` is its parent."""
    if not _HAS_PROC:  # existence is all we can tell
        return _running(pid)
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state, parent = stat.rsplit(")", 1)[1].split()[:2]
    return state not in ("Z", "X") and int(parent) == master


def prune_dead_workers(directory: Path) -> list[int]:
    """Mark dead every pid in ``directory`` that is not a live worker of this replica
    (a child of this process's parent, or this process); returns them."""
    me, master = os.getpid(), os.getppid()
    dead = [
        pid
        for pid in sorted(live_gauge_pids(directory))
        if pid != me and not _is_sibling_worker(pid, master)
    ]
    if dead:
        from prometheus_client.multiprocess import mark_process_dead  # noqa: PLC0415 (above)

        for pid in dead:
            mark_process_dead(pid, str(directory))  # type: ignore[no-untyped-call]
    return dead
