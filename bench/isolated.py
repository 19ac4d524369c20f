"""The isolated stack a benchmark entry point starts (``bench/run.py``,
``bench/metrics_cost.py``, ``bench/memory.py``): wrk installed, SIGTERM ending the run
through its cleanup, and a stack of its own (the test harness) with the per-address limits
raised out of the way."""

from __future__ import annotations

import shutil
import signal
import sys
import tempfile
from pathlib import Path

from bench.measure import LOGS, RAISED_LIMIT, ROOT, say
from tests.harness.stack import Stack, new_stack, remove_stack


def _terminate(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def bench_stack(
    prefix: str, settings: dict[str, str] | None = None, *, wrk: bool = True
) -> tuple[Path, Stack] | None:
    """A new stack in a new folder named ``prefix...`` (not started), or None, said on
    stderr, when wrk is missing (``wrk=False``: the run does not use it)."""
    if wrk and shutil.which("wrk") is None:
        print("wrk is not installed (bash bench/run.sh installs it)", file=sys.stderr)
        return None
    signal.signal(signal.SIGTERM, _terminate)
    base = Path(tempfile.mkdtemp(prefix=prefix))
    stack = new_stack(base)
    stack.env.update(
        {
            "SVC_TOKEN_PER_IP": RAISED_LIMIT,
            "SVC_AUTH_FAIL_PER_IP": RAISED_LIMIT,
            "SVC_LOG_LEVEL": "WARNING",
            **(settings or {}),
        }
    )
    return base, stack


def remove_bench_stack(base: Path, stack: Stack) -> None:
    """Stop and remove ``stack`` and its folder ``base``, keeping its service logs in
    ``var/bench/logs`` (the last run's)."""
    say(f"removing the stack (service logs kept in {LOGS.relative_to(ROOT)})")
    remove_stack(stack)
    shutil.rmtree(LOGS, ignore_errors=True)
    if (stack.work_dir / "logs").is_dir():
        shutil.copytree(stack.work_dir / "logs", LOGS)
    shutil.rmtree(base, ignore_errors=True)
