"""The worker's side of a drain (idp_common.web.shutdown): the flag file is noticed, and
while draining every response says ``Connection: close``; before, nothing changes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from idp_common.web.shutdown import Draining, close_when_draining, watch_flag

START: dict[str, Any] = {"type": "http.response.start", "status": 200, "headers": [(b"a", b"1")]}


def test_the_flag_file_turns_draining_on(tmp_path: Path) -> None:
    flag = tmp_path / "draining"
    draining = Draining()

    async def scenario() -> bool:
        watcher = asyncio.create_task(watch_flag(str(flag), draining, interval=0.01))
        await asyncio.sleep(0.05)
        before = draining.active
        flag.touch()
        await asyncio.wait_for(watcher, 2)
        return before

    assert asyncio.run(scenario()) is False
    assert draining.active is True


def test_responses_keep_their_connection_until_the_drain() -> None:
    hook = close_when_draining(Draining())
    message = dict(START)
    asyncio.run(hook(message, {}))
    assert message["headers"] == [(b"a", b"1")]


def test_while_draining_every_response_closes_its_connection() -> None:
    hook = close_when_draining(Draining(active=True))
    start, body = dict(START), {"type": "http.response.body", "body": b"x"}
    asyncio.run(hook(start, {}))
    asyncio.run(hook(body, {}))
    assert start["headers"] == [(b"a", b"1"), (b"connection", b"close")]
    assert body == {"type": "http.response.body", "body": b"x"}
