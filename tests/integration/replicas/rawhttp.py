"""HTTP/1.1 over a plain socket, for what an HTTP client library hides: a connection kept
open across a signal, a request whose body arrives slowly, the ``Connection`` header."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path

FORM = "application/x-www-form-urlencoded"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]  # lower-cased names
    body: bytes

    @property
    def closes(self) -> bool:
        return self.headers.get("connection", "").lower() == "close"


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30)


def send_get(conn: socket.socket, path: str) -> None:
    conn.sendall(f"GET {path} HTTP/1.1\r\nHost: idp.test\r\n\r\n".encode())


def start_post(conn: socket.socket, path: str, body: bytes, sent: int) -> None:
    """Send the head of a form POST and only ``sent`` bytes of its ``body``."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: idp.test\r\nContent-Type: {FORM}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    conn.sendall(head.encode() + body[:sent])


def read_answer(conn: socket.socket) -> Answer:
    """One response (``Content-Length`` framed, as the services answer)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a response head: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return Answer(int(lines[0].split()[1]), headers, body)


def get(port: int, path: str) -> Answer:
    """One request on a new connection."""
    with connect(port) as conn:
        send_get(conn, path)
        return read_answer(conn)


def established_to(port: int) -> int:
    """How many TCP connections to ``port`` on this machine are open (the server's side,
    from /proc/net/tcp: local port ``port``, state ESTABLISHED)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port = int(fields[1].rsplit(":", 1)[1], 16)
        count += local_port == port and fields[3] == "01"
    return count


def closed_by_peer(conn: socket.socket) -> bool:
    """Whether the other side has closed ``conn`` (an empty read)."""
    conn.settimeout(5)
    try:
        return conn.recv(1) == b""
    except ConnectionResetError:
        return True
