"""Graceful shutdown, the master's side: the Granian server ``idp serve`` runs.

Granian alone stops at once on SIGTERM: its master closes the listening sockets, sends
SIGTERM to the workers, which close idle keep-alive connections, finish the requests in
flight and exit; after ``workers_kill_timeout`` the master kills those still running.
A proxy that pooled one of those idle connections may be sending a request on it at that
very moment; nginx never re-sends a POST that it has begun to send, so the client gets a
502 although nothing went wrong (docs/operations.md "Rolling restart").

:class:`DrainingGranian` puts a drain in front of that stop. On the first SIGTERM it
creates the drain flag file (named by ``IDP_DRAIN_FLAG``, which it put in the
environment before the workers were spawned: every worker, a respawned one too, watches
it, see :mod:`idp_common.web.shutdown`), keeps serving for ``drain_seconds`` (ready
answers 503, every response closes its connection), then lets Granian stop as above,
bounded by ``workers_kill_timeout`` (``SVC_SHUTDOWN_TIMEOUT_SECONDS``). A second SIGTERM
during the drain, or a SIGINT, stops at once. The process exits 0.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from granian.log import logger
from granian.server import MPServer

from idp_common.web.shutdown import DRAIN_FLAG_ENV


# MPServer is what ``granian.Granian`` is on every CPython with a GIL (the runtime here);
# naming it keeps the type checker able to see the class.
class DrainingGranian(MPServer):
    def __init__(self, *args: Any, drain_seconds: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.drain_seconds = drain_seconds
        self._flag: Path | None = None
        self._drain: threading.Timer | None = None

    def serve(self, *args: Any, **kwargs: Any) -> None:
        folder = Path(tempfile.mkdtemp(prefix="idp-serve-"))
        self._flag = folder / "draining"
        os.environ[DRAIN_FLAG_ENV] = str(self._flag)  # before Granian spawns the workers
        try:
            super().serve(*args, **kwargs)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def signal_handler_interrupt(self, *args: Any, **kwargs: Any) -> None:
        """SIGTERM or SIGINT (Granian calls this in the main thread with the signal's
        number). SIGINT stops at once: it is Ctrl-C in a terminal, which reaches the
        workers too, and they have already stopped."""
        stop: Callable[..., None] = super().signal_handler_interrupt  # Granian's own
        if args and args[0] == signal.SIGINT:
            stop(*args, **kwargs)
            return
        if self._drain is not None or self._flag is None:
            logger.info("Stop signal during the drain: stopping now")
            if self._drain is not None:
                self._drain.cancel()
            stop(*args, **kwargs)
            return
        self._flag.touch()
        logger.info(
            f"Draining for {self.drain_seconds:g} s (ready answers 503, connections close),"
            " then stopping"
        )
        self._drain = threading.Timer(self.drain_seconds, stop, args, kwargs)
        self._drain.daemon = True
        self._drain.start()
