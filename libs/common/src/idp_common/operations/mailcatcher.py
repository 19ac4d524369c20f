"""A local SMTP server for development and tests: every message becomes an ``.eml`` file.

``idp mail-catcher --port 1025 --dir var/mail`` (``make up`` starts it when port 1025 is
free). Nothing is relayed anywhere. Each accepted message is written as
``<unix-nanoseconds>-<n>.eml`` (the bytes as received, after an ``X-Envelope-To`` line
naming the recipients), first to a hidden temporary name and then renamed, so whoever
watches the directory never reads half a message. Open a file with any mail reader, or
``python -m email`` tooling; tests parse them with :mod:`email`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

log = logging.getLogger("idp.mailcatcher")


class EmlWriter:
    """aiosmtpd handler writing each message to ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self._counter = itertools.count(1)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        recipients = ", ".join(envelope.rcpt_tos)
        name = f"{time.time_ns()}-{next(self._counter)}.eml"
        data = f"X-Envelope-To: {recipients}\r\n".encode() + content
        temporary = self.directory / f".{name}.part"
        temporary.write_bytes(data)
        os.replace(temporary, self.directory / name)
        log.info("mail-catcher: %s for %s", name, recipients)
        return "250 Message accepted for delivery"


async def serve(host: str, port: int, directory: Path) -> None:
    """Accept mail on ``host:port`` until SIGTERM or SIGINT."""
    handler = EmlWriter(directory)
    loop = asyncio.get_running_loop()

    def factory() -> Any:
        return SMTP(handler, hostname="mail-catcher.local", ident="idp mail-catcher")

    server = await loop.create_server(factory, host=host, port=port)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"mail-catcher: listening on {host}:{port}, writing to {directory}/", flush=True)
    try:
        await stop.wait()
    finally:
        server.close()
        await server.wait_closed()
