"""Where the token service's time goes (``bash bench/run.sh --profile``; issue #24 item 3).

Starts the isolated bench stack with ONE token worker (so one process holds the whole
load), drives each hot row of ``bench/scenarios.py`` at concurrency 64 and samples that
worker with py-spy (run through ``uvx``: a tool of its own, outside the project's lock)
while the row runs. Prints per row: the share of samples by package of the innermost
frame (our code, Litestar, SQLAlchemy, asyncpg, joserfc, the interpreter's asyncio...),
the functions with the most samples of their own, and our own functions by the share of
samples they are on the stack of. Throughput is printed for context only: sampling slows
the worker, so compare rates with ``make bench``, never with this.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench import ceilings as ceiling_mod
from bench import records as rec
from bench.isolated import bench_stack
from bench.measure import say
from bench.scenarios import Run
from tests.harness.process import children
from tests.harness.stack import remove_stack, start_stack

ROWS: dict[str, Callable[[Run], None]] = {
    "client_credentials": Run.client_credentials,
    "refresh": Run.refresh,
    "code_flow": Run.code_flow,
    "introspection": Run.introspection,
    "userinfo": Run.userinfo,
}
#: Innermost-frame file path → package, first match wins.
AREAS = (
    ("our code", re.compile(r"^(idp_common|token_service)/")),
    ("granian (Rust: transport and loop)", re.compile(r"^granian/")),
    ("litestar", re.compile(r"^litestar/")),
    ("sqlalchemy", re.compile(r"^sqlalchemy/")),
    ("asyncpg", re.compile(r"^asyncpg/")),
    ("joserfc (RSA signing in OpenSSL)", re.compile(r"^joserfc/")),
    ("cryptography", re.compile(r"^cryptography/")),
    ("redis", re.compile(r"^redis/")),
    ("msgspec", re.compile(r"^msgspec/")),
    ("opentelemetry/prometheus", re.compile(r"^(opentelemetry|prometheus_client)/")),
    ("asyncio", re.compile(r"^asyncio/")),
)
#: Frames that only await the transport: their own samples are Granian's native send and
#: receive, not Python work.
TRANSPORT = re.compile(r"^(send_and_note|.*tracking_receive) \(idp_common/web/")
FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*):(?P<line>\d+)\)$")


def area_of(frame: str) -> str:
    if TRANSPORT.match(frame.rsplit(".", 1)[-1]) or TRANSPORT.match(frame):
        return "granian (Rust: transport and loop)"
    match = FRAME.match(frame)
    path = match["file"] if match else frame
    return next((name for name, pattern in AREAS if pattern.search(path)), "stdlib and other")


def short(frame: str) -> str:
    match = FRAME.match(frame)
    if not match:
        return frame
    return f"{match['func']} ({match['file']}:{match['line']})"


def read_stacks(raw: Path) -> list[tuple[list[str], int]]:
    stacks = []
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks.append((stack.split(";"), int(count)))
    return stacks


def report(row: str, stacks: list[tuple[list[str], int]], top: int) -> None:
    total = sum(count for _, count in stacks) or 1
    areas: Counter[str] = Counter()
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    for frames, count in stacks:
        areas[area_of(frames[-1])] += count
        own[short(frames[-1])] += count
        for frame in set(frames):
            if FRAME.match(frame) and AREAS[0][1].search(FRAME.match(frame)["file"]):  # type: ignore[index]
                inclusive[short(frame)] += count
    print(f"\n== {row}: {total:,} samples")
    print("  by package of the innermost frame:")
    for name, count in areas.most_common():
        print(f"    {100 * count / total:5.1f} %  {name}")
    print("  functions with the most samples of their own:")
    for name, count in own.most_common(top):
        print(f"    {100 * count / total:5.1f} %  {name}")
    print("  our functions, by the share of samples they are on the stack of:")
    for name, count in inclusive.most_common(top):
        print(f"    {100 * count / total:5.1f} %  {name}")


def profile_row(run: Run, row: str, worker: int, opts: argparse.Namespace, out: Path) -> None:
    raw = out / f"{row}.txt"
    seconds = opts.warmup + opts.duration + 1
    spy = subprocess.Popen(
        [
            *("uvx", "py-spy", "record", "--pid", str(worker), "--rate", str(opts.rate)),
            *("--format", "raw", "--output", str(raw), "--nonblocking"),
            *("--duration", str(int(seconds) + 1)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ROWS[row](run)
    finally:
        _, err = spy.communicate()
    if spy.returncode != 0 or not raw.exists():
        print(f"\n== {row}: py-spy failed ({spy.returncode}): {err.strip()[-300:]}")
        return
    report(row, read_stacks(raw), opts.top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.sh --profile", description=__doc__)
    parser.add_argument("--rows", default=",".join(ROWS), help="comma list of " + ", ".join(ROWS))
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--rate", type=int, default=250, help="samples per second")
    parser.add_argument("--top", type=int, default=20)
    opts = parser.parse_args(argv)
    rows = [r for r in opts.rows.split(",") if r]
    if unknown := set(rows) - set(ROWS):
        parser.error(f"unknown row(s): {', '.join(sorted(unknown))}")
    # What Run reads of the options of bench/run.py.
    opts.concurrency, opts.wrk_threads, opts.procs, opts.probe_ms = [64], 1, 1, 50.0
    if shutil.which("uvx") is None:
        print("uvx (from uv) is needed to run py-spy", file=sys.stderr)
        return 2
    prepared = bench_stack("idp-profile-")
    if prepared is None:
        return 2
    base, stack = prepared
    out = Path(tempfile.mkdtemp(prefix="idp-profile-out-"))
    try:
        say(f"starting an isolated stack (run {stack.run_id}), one token worker")
        start_stack(stack, workers={"token": 1})
        fixtures = rec.create_fixtures(stack, users=8, sessions=64)
        ceilings = ceiling_mod.measure(stack.key_dir, seconds=0.5)
        run = Run(stack, fixtures, opts, ceilings)
        master = next(p for p in stack.processes if p.name == "token")
        (worker,) = children(master.popen.pid) or {master.popen.pid}
        for row in rows:
            say(f"profiling {row} (token worker pid {worker})")
            profile_row(run, row, worker, opts, out)
        return 0
    finally:
        remove_stack(stack)
        shutil.rmtree(base, ignore_errors=True)
        print(f"\nraw py-spy stacks kept in {out}")


if __name__ == "__main__":
    sys.exit(main())
