"""``idp_common.background.in_background``: the work runs during the block and has stopped
when the block is left, by its end or by an exception."""

from __future__ import annotations

import asyncio

import pytest

from idp_common.background import in_background


async def _tick(ticks: list[int]) -> None:
    while True:
        ticks.append(1)
        await asyncio.sleep(0.001)


async def test_the_work_runs_during_the_block_and_stops_after_it() -> None:
    ticks: list[int] = []
    async with in_background(_tick(ticks), name="ticker"):
        await asyncio.sleep(0.02)
        assert ticks
    seen = len(ticks)
    await asyncio.sleep(0.02)
    assert len(ticks) == seen
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "ticker"]


async def test_an_exception_in_the_block_stops_the_work_and_propagates() -> None:
    ticks: list[int] = []
    with pytest.raises(RuntimeError, match="boom"):
        async with in_background(_tick(ticks), name="ticker"):
            await asyncio.sleep(0.005)
            raise RuntimeError("boom")
    seen = len(ticks)
    await asyncio.sleep(0.02)
    assert len(ticks) == seen
