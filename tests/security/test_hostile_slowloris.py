"""Slow clients at the proxy (issue #21): slow-loris and its relatives.

A client that trickles its request header a byte at a time, one that sends a header and
then never the body it announced, and one that holds an idle keep-alive connection are
each cut off by the proxy within its configured timeout (a 408 or a plain close), while
other clients are still served. A second proxy is rendered with timeouts of 2 seconds
so the test observes them quickly; production keeps its defaults (docs/security.md
"Hostile input").
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest

from tests.harness.stack import Stack
from tests.security.hostile_support import address_of

pytestmark = pytest.mark.integration
TIMEOUT = 2  # seconds, each of the rendered proxy's client timeouts
MARGIN = 2.5  # nginx checks its timers at its own pace; the machine is shared
GIVE_UP = 15  # a connection still open then is a failure


@dataclass
class Cut:
    """When the proxy ended a slow connection, and what it said first."""

    after: float
    first_bytes: bytes


@pytest.fixture
def slow_proxy(extra_processes: Stack) -> str:
    seconds = str(TIMEOUT)
    process = extra_processes.start_proxy(
        name="slowproxy",
        extra_args=(
            "--client-header-timeout",
            seconds,
            "--client-body-timeout",
            seconds,
            "--keepalive-timeout",
            seconds,
        ),
    )
    extra_processes.wait_until_up(process, "/console/")
    return process.url


def _wait_for_cut(sock: socket.socket, started: float, trickle: Callable[[], None]) -> Cut:
    sock.settimeout(0.5)
    received = b""
    while time.monotonic() - started < GIVE_UP:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            try:
                trickle()
            except OSError:  # the proxy has already closed
                return Cut(time.monotonic() - started, received)
            continue
        except OSError:
            return Cut(time.monotonic() - started, received)
        if not chunk:
            return Cut(time.monotonic() - started, received)
        received += chunk
    raise AssertionError(f"still open after {GIVE_UP}s; got {received[:80]!r}")


def header_trickler(url: str) -> Cut:
    """Slow-loris: a new header byte every half second, never the end of the header."""
    with socket.create_connection(address_of(url)) as sock:
        started = time.monotonic()
        sock.sendall(b"GET /.well-known/openid-configuration HTTP/1.1\r\nHost: idp\r\nX-Slow: ")
        return _wait_for_cut(sock, started, lambda: sock.sendall(b"a"))


def body_staller(url: str) -> Cut:
    """A header announcing 1000 bytes of body, then 10 of them, then silence."""
    with socket.create_connection(address_of(url)) as sock:
        sock.sendall(
            b"POST /oauth2/token HTTP/1.1\r\nHost: idp\r\nContent-Length: 1000\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n\r\ngrant_type"
        )
        started = time.monotonic()
        return _wait_for_cut(sock, started, lambda: None)


def idle_keeper(url: str) -> Cut:
    """A complete request on a keep-alive connection, then nothing."""
    with socket.create_connection(address_of(url)) as sock:
        sock.sendall(b"GET /.well-known/openid-configuration HTTP/1.1\r\nHost: idp\r\n\r\n")
        sock.settimeout(5)
        answer = sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:80]
        started = time.monotonic()
        cut = _wait_for_cut(sock, started, lambda: None)
        # What is left of the first answer's body may arrive first; nothing else may.
        assert b"HTTP/1.1" not in cut.first_bytes, cut.first_bytes[:80]
        return Cut(cut.after, b"")


def test_slow_clients_are_cut_off_while_others_are_served(slow_proxy: str) -> None:
    kinds: list[tuple[str, Callable[[str], Cut]]] = [
        *[(f"header-{n}", header_trickler) for n in range(5)],
        ("body", body_staller),
        ("idle", idle_keeper),
    ]
    cuts: dict[str, Cut | BaseException] = {}

    def run(name: str, slow: Callable[[str], Cut]) -> None:
        try:
            cuts[name] = slow(slow_proxy)
        except BaseException as exc:  # reported below, in the test's own thread
            cuts[name] = exc

    threads = [threading.Thread(target=run, args=kind, daemon=True) for kind in kinds]
    for thread in threads:
        thread.start()
    served = 0
    with httpx.Client(base_url=slow_proxy, timeout=5) as client:
        while any(thread.is_alive() for thread in threads):
            assert client.get("/.well-known/openid-configuration").status_code == 200
            served += 1
            time.sleep(0.3)
    for thread in threads:
        thread.join()
    assert served >= 3  # other clients were answered all along
    for name, cut in cuts.items():
        assert isinstance(cut, Cut), (name, cut)
        assert cut.after <= TIMEOUT + MARGIN, (name, cut.after)
        # nginx closes a request that timed out; if it answers, it is a 408.
        assert cut.first_bytes == b"" or cut.first_bytes.startswith(b"HTTP/1.1 408"), (
            name,
            cut.first_bytes[:120],
        )
