"""A real HTTP server standing for an application's redirect URI, for browser tests: it
answers 200 to any GET and records each request's path."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


class _CallbackHandler(BaseHTTPRequestHandler):
    seen: ClassVar[list[str]]

    def do_GET(self) -> None:
        self.seen.append(self.path)
        body = b"client callback"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


@contextmanager
def callback_server() -> Iterator[tuple[str, list[str]]]:
    """``(redirect_uri, paths seen)`` of a server on 127.0.0.1, stopped afterwards."""
    seen: list[str] = []
    handler = type("Handler", (_CallbackHandler,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/cb", seen
    finally:
        server.shutdown()
        server.server_close()
