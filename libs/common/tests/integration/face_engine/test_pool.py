"""The face engine's process pool: the event loop keeps running, a dead pool is replaced, the
lifespan and the pool size."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time

import pytest
from litestar import Litestar

from idp_common.config import Settings
from idp_common.crypto.passwords import WORKERS_ENV
from idp_common.crypto.secretbox import generate_key
from idp_common.face import (
    FaceEngine,
    FaceUnavailable,
    lifespan,
)
from idp_common.face.engine import pool_size
from libs.common.tests.integration.face_engine.support import (
    SETTINGS,
    photo,
)

pytestmark = pytest.mark.integration


@pytest.mark.face
async def test_the_event_loop_keeps_running_while_faces_are_embedded(
    engine: FaceEngine,
) -> None:
    worst = 0.0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal worst
        while not done.is_set():
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, time.perf_counter() - before - 0.001)

    ticker = asyncio.create_task(tick())
    began = time.perf_counter()
    names = ["obama1", "biden2", "rose_leslie1", "kit_harington1"] * 2
    await asyncio.gather(*(engine.embed(photo(name)) for name in names))
    elapsed = time.perf_counter() - began
    done.set()
    await ticker
    # one embedding holds its process for 0.2-0.5 s: on the loop, the ticker would see it
    assert elapsed > 0.5
    assert worst < 0.1, f"the event loop stalled {worst * 1000:.0f} ms"


@pytest.mark.face
async def test_a_pool_whose_process_died_is_replaced() -> None:
    before = set(multiprocessing.active_children())
    engine = FaceEngine(Settings(secrets_key=generate_key(), face_workers=1))
    await engine.start()
    try:
        spawned = [p for p in multiprocessing.active_children() if p not in before]
        assert len(spawned) == engine.processes == 1
        assert spawned[0].pid is not None
        os.kill(spawned[0].pid, signal.SIGKILL)
        with pytest.raises(FaceUnavailable):
            await engine.embed(photo("obama2"))
        assert engine.available
        assert len(await engine.embed(photo("obama2"))) == 512  # a fresh pool
    finally:
        await engine.close()
    with pytest.raises(FaceUnavailable):
        await engine.embed(photo("obama2"))  # closed


@pytest.mark.face
async def test_the_lifespan_starts_the_pool_with_the_app_and_closes_it_after() -> None:
    before = set(multiprocessing.active_children())
    engine = FaceEngine(Settings(secrets_key=generate_key(), face_workers=1))
    async with lifespan(engine)(Litestar()):
        spawned = [p for p in multiprocessing.active_children() if p not in before]
        assert len(spawned) == 1  # started, not on the first request
        assert len(await engine.embed(photo("biden2"))) == 512
    spawned[0].join(timeout=10)
    assert not spawned[0].is_alive()
    with pytest.raises(FaceUnavailable):
        await engine.embed(photo("biden2"))


@pytest.mark.parametrize(
    ("face_workers", "cores", "serve_workers", "expected"),
    [(0, 2, 2, 1), (0, 2, 1, 2), (0, 8, 2, 4), (0, 1, 4, 1), (0, 4, 0, 4), (3, 2, 2, 3)],
)
def test_pool_size_shares_the_cores_among_the_service_workers(
    face_workers: int, cores: int, serve_workers: int, expected: int
) -> None:
    assert pool_size(face_workers, cores, serve_workers) == expected


def test_the_pool_size_follows_the_serve_workers_and_the_setting() -> None:
    cores = len(os.sched_getaffinity(0))
    automatic = Settings(secrets_key=generate_key())
    assert FaceEngine(automatic, env={WORKERS_ENV: "2"}).processes == max(1, cores // 2)
    assert FaceEngine(automatic, env={}).processes == cores
    assert FaceEngine(SETTINGS, env={WORKERS_ENV: "8"}).processes == 2


async def test_without_a_secrets_key_the_engine_is_unavailable() -> None:
    engine = FaceEngine(Settings(face_workers=1))
    assert engine.available is False
    await engine.start()  # a no-op
    with pytest.raises(FaceUnavailable):
        await engine.embed(photo("obama1"))
    await engine.close()
