"""Graceful shutdown, the worker's side: what a service does while its replica drains.

On SIGTERM the ``idp serve`` master (:mod:`idp_common.operations.serving`) creates the file
named by ``IDP_DRAIN_FLAG``, which it put in the environment before Granian started the
workers, waits ``SVC_SHUTDOWN_DRAIN_SECONDS``, then lets Granian stop. Meanwhile each worker:

- notices the file within :data:`POLL_SECONDS` (one ``stat`` per interval in a background
  task; a request never touches the filesystem, it reads a flag);
- answers ``/health/ready`` 503 ``{"status": "draining"}``, so load balancers and
  Kubernetes take the replica out (:mod:`idp_common.web.health`);
- keeps serving every request, each answered with ``Connection: close``: a proxy does not
  keep a connection whose response said so, so by the end of the drain no idle keep-alive
  connection to this replica is left in the proxy's pool for Granian's stop to close
  under a request being sent on it (docs/operations.md "Rolling restart").
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from litestar import Litestar, Request
from litestar.types import Message, Scope

#: The environment variable naming the drain flag file (set by ``idp serve`` only).
DRAIN_FLAG_ENV = "IDP_DRAIN_FLAG"
POLL_SECONDS = 0.2
STATE_KEY = "draining"  # where the app's Draining lives in its Litestar state

log = logging.getLogger("idp.shutdown")


@dataclass
class Draining:
    """Whether this worker's replica is draining; set once, never cleared."""

    active: bool = False


async def watch_flag(path: str, draining: Draining, interval: float = POLL_SECONDS) -> None:
    """Set ``draining.active`` once ``path`` exists."""
    # Polling is the point: a file is the one thing the master and every worker (a
    # respawned one too) share; a stat of a local file every 0.2 s costs nothing.
    while not os.path.exists(path):  # noqa: ASYNC110, ASYNC240
        await asyncio.sleep(interval)
    draining.active = True
    log.info("draining: /health/ready answers 503, every response closes its connection")


def drain_watch(
    draining: Draining, flag: str | None = None
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """The lifespan that watches the flag (``flag``, by default ``$IDP_DRAIN_FLAG``); a
    process not started by ``idp serve`` has no flag and never drains."""

    @asynccontextmanager
    async def watch(_: Litestar) -> AsyncIterator[None]:
        path = flag if flag is not None else os.environ.get(DRAIN_FLAG_ENV, "")
        if not path:
            yield
            return
        task = asyncio.get_running_loop().create_task(watch_flag(path, draining))
        try:
            yield
        finally:
            task.cancel()

    return watch


def close_when_draining(draining: Draining) -> Callable[[Message, Scope], Awaitable[None]]:
    """A ``before_send`` hook: while draining, every response says ``Connection: close``
    (Granian then closes the connection after it; a proxy does not pool it again)."""

    async def add_close(message: Message, _: Scope) -> None:
        if draining.active and message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), (b"connection", b"close")]

    return add_close


def is_draining(request: Request[Any, Any, Any]) -> bool:
    draining = request.app.state.get(STATE_KEY)
    return isinstance(draining, Draining) and draining.active
