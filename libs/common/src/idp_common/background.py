"""A coroutine running in the background for as long as a block runs: the lifespans of
the key ring's re-reading, the metrics tick, the periodic cleanup and the dispatcher's
consumer."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any


@contextlib.asynccontextmanager
async def in_background(work: Coroutine[Any, Any, Any], *, name: str) -> AsyncIterator[None]:
    """Start ``work`` as a task; when the block ends (however it ends), cancel the task and
    wait until it has stopped, so nothing of it runs after the block."""
    task = asyncio.get_running_loop().create_task(work, name=name)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
