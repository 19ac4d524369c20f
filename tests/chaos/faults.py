"""The faults, injected one at a time while the load runs. Each returns the
:class:`~tests.chaos.report.Row` fields it alone knows (when the fault ended, health, a
note); :mod:`tests.chaos.__main__` adds the load's counts and the invariants."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from tests.chaos.deps import OwnPostgres, OwnRedis
from tests.chaos.load import Load
from tests.chaos.report import recovery_seconds
from tests.harness.nats_server import NatsServer
from tests.harness.process import Process, children
from tests.harness.receivers import Receiver
from tests.harness.records import TestClient
from tests.harness.stack import Stack

OBSERVE_MAX_S = 30.0  # after the fault ends, wait at most this long for recovery
STABLE_S = 4.0  # and for this long of normal answers once recovered


@dataclass
class Context:
    stack: Stack
    pg: OwnPostgres
    redis: OwnRedis
    nats: NatsServer
    load: Load
    hang_app: TestClient  # a receiver that never answers
    slow_app: TestClient  # a receiver that answers after 6 s
    hang: Receiver
    slow: Receiver


@dataclass
class Window:
    """What a fault reports besides the load's counts."""

    started: float
    back_at: float = 0.0
    ended: float = 0.0
    health_during: str = "-"
    health_after: str = "-"
    note: str = ""
    broken: str = ""  # a fault-specific expectation that failed
    recovery: float | None = 0.0


def health(stack: Stack, *services: str) -> str:
    """``service health/ready`` status codes ("-" for no answer)."""
    parts = []
    for name in services:
        codes = []
        for path in ("/health", "/health/ready"):
            try:
                codes.append(str(httpx.get(stack.service_url(name) + path, timeout=3).status_code))
            except httpx.TransportError:
                codes.append("-")
        parts.append(f"{name} {'/'.join(codes)}")
    return ", ".join(parts)


def observe(ctx: Context, window: Window) -> None:
    """Wait until every load kind answers normally again (and keeps doing so for a few
    seconds), at most OBSERVE_MAX_S after the fault ended; record the recovery time."""
    deadline = window.back_at + OBSERVE_MAX_S
    time.sleep(STABLE_S)
    while True:
        now = time.monotonic()
        recovered = recovery_seconds(ctx.load.since(window.started), window.back_at, now)
        if recovered is not None and now - (window.back_at + recovered) >= STABLE_S:
            break
        if now > deadline:
            break
        time.sleep(1)
    window.ended = time.monotonic()
    window.recovery = recovery_seconds(ctx.load.since(window.started), window.back_at, window.ended)


def outage(
    ctx: Context, stop: Callable[[], None], start: Callable[[], None], seconds: float,
    services: tuple[str, ...],
) -> Window:  # fmt: skip
    """A dependency stopped for ``seconds`` under load, then started again."""
    window = Window(time.monotonic())
    time.sleep(2)
    stop()
    stopped_at = time.monotonic()
    time.sleep(min(seconds / 2, 5))
    window.health_during = health(ctx.stack, *services)
    time.sleep(max(0.0, seconds - (time.monotonic() - stopped_at)))
    start()
    window.back_at = time.monotonic()
    observe(ctx, window)
    window.health_after = health(ctx.stack, *services)
    return window


def postgres_down(ctx: Context) -> Window:
    return outage(ctx, ctx.pg.stop, ctx.pg.start, 10, ("token", "logout-dispatcher"))


def redis_down(ctx: Context) -> Window:
    return outage(ctx, ctx.redis.stop, ctx.redis.start, 10, ("token", "logout-dispatcher"))


def nats_down(ctx: Context) -> Window:
    return outage(ctx, ctx.nats.stop, ctx.nats.start, 30, ("logout-dispatcher",))


def _process(stack: Stack, name: str) -> Process:
    port = stack.service_ports[name]
    return next(p for p in stack.processes if p.name == name and p.port == port)


def _restart(stack: Stack, name: str, old: Process, workers: int | None = None) -> None:
    stack.processes.remove(old)
    process = stack.start_service(name, port=stack.service_ports[name], workers=workers)
    stack.wait_until_up(process)


def dispatcher_killed(ctx: Context) -> Window:
    """SIGKILL the dispatcher (master and workers) while it waits on a receiver that never
    answers (a fan-out in progress), then start it again as a supervisor would."""
    window = Window(time.monotonic())
    posts_before = len(ctx.hang.snapshot())
    done_before = len(ctx.load.signed_in)
    ctx.load.extra_apps[:] = [ctx.hang_app]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # a logout of a session that reached the hanging app
        if any(s.logged_out and ctx.hang_app.client_id in s.apps
               for s in ctx.load.signed_in[done_before:]):  # fmt: skip
            break
        time.sleep(0.2)
    time.sleep(1.5)  # the dispatcher posted, and waits on the silent receiver
    victim = _process(ctx.stack, "logout-dispatcher")
    os.killpg(victim.popen.pid, signal.SIGKILL)
    victim.popen.wait(10)
    time.sleep(1)
    window.health_during = health(ctx.stack, "logout-dispatcher")
    time.sleep(2)
    ctx.load.extra_apps.clear()
    _restart(ctx.stack, "logout-dispatcher", victim)
    window.back_at = time.monotonic()
    observe(ctx, window)
    window.health_after = health(ctx.stack, "logout-dispatcher")
    window.note = (
        f"{len(ctx.hang.snapshot()) - posts_before} posts reached the silent receiver; the "
        "events in flight are delivered again after the consumer's 30 s ack wait"
    )
    return window


def worker_killed(ctx: Context) -> Window:
    """SIGKILL one of the token service's two Granian workers; nobody restarts anything."""
    window = Window(time.monotonic())
    time.sleep(2)
    master = _process(ctx.stack, "token")
    workers = sorted(children(master.popen.pid))
    if not workers:
        window.note = "no worker process found"
        return window
    os.kill(workers[0], signal.SIGKILL)
    window.back_at = time.monotonic()
    time.sleep(1)
    window.health_during = health(ctx.stack, "token")
    observe(ctx, window)
    window.health_after = health(ctx.stack, "token")
    alive = master.popen.poll() is None
    window.note = f"workers before {workers}, after {sorted(children(master.popen.pid))}" + (
        "" if alive else "; the service exited: restarted by the runner"
    )
    if not alive:
        window.broken = "the service exited: it needed a restart"
        _restart(ctx.stack, "token", master, workers=2)
    return window


def receivers_stall(ctx: Context) -> Window:
    """Sessions reach an application whose receiver never answers and one whose receiver
    answers after 6 s; their logouts must still answer at once and be delivered."""
    window = Window(time.monotonic())
    hang_before, slow_before = len(ctx.hang.snapshot()), len(ctx.slow.snapshot())
    ctx.load.extra_apps[:] = [ctx.hang_app, ctx.slow_app]
    time.sleep(15)
    window.health_during = health(ctx.stack, "token", "logout-dispatcher")
    ctx.load.extra_apps.clear()
    window.back_at = time.monotonic()
    observe(ctx, window)
    window.health_after = health(ctx.stack, "token", "logout-dispatcher")
    window.note = (
        f"silent receiver got {len(ctx.hang.snapshot()) - hang_before} posts, "
        f"6 s receiver {len(ctx.slow.snapshot()) - slow_before}"
    )
    return window
