"""The replica's multiprocess directory and the pruning of dead workers' live gauges
(``idp_common.observability.multiprocess``), on real files and real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from idp_common.observability.multiprocess import (
    create_replica_dir,
    live_gauge_pids,
    prune_dead_workers,
)


def dead_pid() -> int:
    """The pid of a process that has run and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def touch(directory: Path, *names: str) -> None:
    for name in names:
        (directory / name).write_bytes(b"")


def test_each_replica_gets_a_new_empty_directory_named_after_it(tmp_path: Path) -> None:
    first = create_replica_dir(str(tmp_path), "token")
    second = create_replica_dir(str(tmp_path), "token")
    assert first != second
    assert first.parent == second.parent == tmp_path
    assert first.name.startswith(f"idp-metrics-token-{os.getpid()}-")
    assert list(first.iterdir()) == []


def test_directories_of_masters_that_are_gone_are_removed(tmp_path: Path) -> None:
    gone = tmp_path / f"idp-metrics-admin-{dead_pid()}-abc123"
    alive = tmp_path / f"idp-metrics-admin-{os.getpid()}-def456"
    unrelated = tmp_path / "idp-metrics-notes"
    for directory in (gone, alive, unrelated):
        directory.mkdir()
        touch(directory, "counter_1.db")
    create_replica_dir(str(tmp_path), "admin")
    assert not gone.exists()
    assert alive.exists()
    assert unrelated.exists()


def test_the_base_directory_is_created_when_missing(tmp_path: Path) -> None:
    made = create_replica_dir(str(tmp_path / "metrics" / "here"), "entity")
    assert made.is_dir()


def test_dead_workers_lose_their_live_gauges_and_keep_their_counters(tmp_path: Path) -> None:
    gone = dead_pid()
    me = os.getpid()
    stranger = 1  # alive, but not a worker of this replica (not a child of our parent)
    touch(
        tmp_path,
        f"gauge_liveall_{gone}.db",
        f"gauge_livesum_{gone}.db",
        f"counter_{gone}.db",
        f"histogram_{gone}.db",
        f"gauge_liveall_{me}.db",
        f"counter_{me}.db",
        f"gauge_liveall_{stranger}.db",
    )
    assert live_gauge_pids(tmp_path) == {gone, me, stranger}

    assert prune_dead_workers(tmp_path) == sorted({gone, stranger})

    left = {path.name for path in tmp_path.iterdir()}
    assert left == {
        f"counter_{gone}.db",
        f"histogram_{gone}.db",
        f"gauge_liveall_{me}.db",
        f"counter_{me}.db",
    }


def test_a_sibling_worker_keeps_its_live_gauges(tmp_path: Path) -> None:
    """Two children of this process stand for two workers of one master: the one that
    prunes keeps its sibling's live gauges, and drops the master's (not a worker)."""
    sibling = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        touch(tmp_path, f"gauge_liveall_{sibling.pid}.db", f"gauge_liveall_{os.getpid()}.db")
        script = (
            "import sys; from pathlib import Path;"
            "from idp_common.observability.multiprocess import prune_dead_workers;"
            "print(prune_dead_workers(Path(sys.argv[1])))"
        )
        out = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        sibling.kill()
        sibling.wait()
    assert out.stdout.strip() == f"[{os.getpid()}]"
    assert (tmp_path / f"gauge_liveall_{sibling.pid}.db").exists()
    assert not (tmp_path / f"gauge_liveall_{os.getpid()}.db").exists()
