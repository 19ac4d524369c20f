"""Shared helpers of the hostile-input tests (``test_hostile_*.py``).

httpx refuses to send much of what an attacker sends (CR/LF in a header, bytes that are
not UTF-8 in the request line, a header trickled one byte at a time), so these tests speak
HTTP/1.1 over a raw socket where needed. :func:`unchanged_database` is the "nothing
written" check: a digest of every row of every table before and after.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from tests.harness.snapshots import database_fingerprint
from tests.harness.stack import Stack

PROBLEM_JSON = "application/problem+json"
#: Tables a refused request may legitimately write: the admin API audits refused writes.
AUDIT_TABLES = frozenset({"audit_events"})


@dataclass
class RawAnswer:
    status: int
    headers: dict[str, list[str]] = field(default_factory=dict)
    body: bytes = b""

    def header(self, name: str) -> str:
        values = self.headers.get(name.lower(), [])
        assert len(values) == 1, (name, self.headers)
        return values[0]

    def json(self) -> Any:
        return json.loads(self.body)


def address_of(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def parse_answer(data: bytes) -> RawAnswer:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers: dict[str, list[str]] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    return RawAnswer(status, headers, body)


def raw_exchange(url: str, request: bytes, timeout: float = 10) -> RawAnswer:
    """Send ``request`` as is and read the answer until the server closes."""
    with socket.create_connection(address_of(url), timeout=timeout) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return parse_answer(b"".join(chunks))


def _status_and_type(answer: httpx.Response | RawAnswer) -> tuple[int, str]:
    if isinstance(answer, httpx.Response):
        return answer.status_code, answer.headers.get("content-type", "")
    return answer.status, answer.header("content-type")


def assert_proxy_problem(answer: httpx.Response | RawAnswer, status: int, code: str) -> None:
    """An RFC 9457 body the proxy wrote itself (an API path outside ``/oauth2/``)."""
    got, content_type = _status_and_type(answer)
    assert got == status, (got, answer.headers)
    assert content_type.startswith(PROBLEM_JSON), content_type
    body = answer.json()
    assert body["status"] == status and body["code"] == code, body
    assert body["detail"], body


def assert_proxy_oauth_error(answer: httpx.Response | RawAnswer, status: int, error: str) -> None:
    """An RFC 6749 §5.2 error object the proxy wrote itself (a path under ``/oauth2/``)."""
    got, content_type = _status_and_type(answer)
    assert got == status, (got, answer.headers)
    assert content_type.startswith("application/json"), content_type
    body = answer.json()
    assert body["error"] == error, body
    assert body["error_description"], body


@contextmanager
def unchanged_database(
    stack: Stack, *, except_tables: frozenset[str] = AUDIT_TABLES
) -> Iterator[None]:
    """Asserts on exit that no row of any table (but ``except_tables``) changed."""
    before = database_fingerprint(stack)
    yield
    after = database_fingerprint(stack)
    changed = sorted(t for t in before.keys() | after.keys() if before.get(t) != after.get(t))
    assert [t for t in changed if t not in except_tables] == [], changed


def assert_still_answering(stack: Stack) -> None:
    """Every service is ready and the proxy serves a real request."""
    for name in ("token", "admin", "entity", "authui-api"):
        ready = httpx.get(stack.service_url(name) + "/health/ready", timeout=10)
        assert ready.status_code == 200, (name, ready.text)
    discovery = httpx.get(stack.proxy_url + "/.well-known/openid-configuration", timeout=10)
    assert discovery.status_code == 200
    assert discovery.json()["issuer"] == stack.issuer
