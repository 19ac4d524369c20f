"""The chained operations the load generator repeats on a connection: the code flow, a
refresh, a password sign-in."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from bench.loadgen_http import SAMPLE_CHARS, Connection, Failure, failure_of, http_request

Operation = Callable[[Connection], Awaitable[None]]


class Pool:
    """Single-use items (refresh tokens, challenges); empty means the run must stop."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.next = 0

    def take(self) -> Any | None:
        if self.next >= len(self.items):
            return None
        item = self.items[self.next]
        self.next += 1
        return item


# --- scenarios --------------------------------------------------------------------------
def code_flow(job: dict[str, Any]) -> Callable[[int], Operation | None]:
    host = job["host_header"]
    cookies: list[str] = job["cookies"]
    authorize_path: str = job["authorize_path"]
    token_body: str = job["token_body"]
    # the members the token answer must hold (bench/peer: the ID and refresh tokens too)
    expected = [f'"{m}"'.encode() for m in job.get("token_expect", ["access_token"])]
    counter = 0

    def make(conn_index: int) -> Operation:
        cookie = cookies[conn_index % len(cookies)]

        async def flow(conn: Connection) -> None:
            nonlocal counter
            counter += 1
            path = f"{authorize_path}&state=s{conn_index}x{counter}"
            first = await conn.send(http_request("GET", path, host, {"Cookie": cookie}))
            if first.status not in (302, 303):  # node-oidc-provider answers 303 See Other
                raise failure_of(first, "authorize")
            location = first.headers.get(b"location", b"").decode()
            codes = parse_qs(urlsplit(location).query).get("code")
            if not codes:
                raise Failure("authorize: 302 without code", location[:SAMPLE_CHARS])
            body = f"{token_body}&code={quote(codes[0], safe='')}".encode()
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            second = await conn.send(http_request("POST", "/oauth2/token", host, form, body))
            if second.status != 200:
                raise failure_of(second, "token")
            for member in expected:
                if member not in second.body:
                    sample = second.body[:SAMPLE_CHARS].decode(errors="replace")
                    raise Failure(f"token: 200 without {member.decode()}", sample)

        return flow

    return make


def refresh(job: dict[str, Any], pool: Pool) -> Callable[[int], Operation]:
    host = job["host_header"]
    headers = {
        "Authorization": job["authorization"],
        "Content-Type": "application/x-www-form-urlencoded",
    }

    def make(_: int) -> Operation:
        async def one(conn: Connection) -> None:
            token = pool.take()
            if token is None:
                raise PoolEmpty
            body = f"grant_type=refresh_token&refresh_token={quote(token, safe='')}".encode()
            answer = await conn.send(http_request("POST", "/oauth2/token", host, headers, body))
            if answer.status != 200:
                raise failure_of(answer)
            if b'"refresh_token"' not in answer.body:
                raise Failure("200 without refresh_token", answer.body[:SAMPLE_CHARS].decode())

        return one

    return make


def prepared_token(job: dict[str, Any], pool: Pool) -> Callable[[int], Operation]:
    """POST /oauth2/token with the next prepared request of the pool (headers and body,
    each used once: a DPoP proof or a client assertion is single use); 200 with
    ``access_token`` and, when the job says so, the token type expected."""
    host = job["host_header"]
    token_type = job.get("token_type")
    expected = f'"token_type":"{token_type}"'.encode() if token_type else b'"access_token"'

    def make(_: int) -> Operation:
        async def one(conn: Connection) -> None:
            item = pool.take()
            if item is None:
                raise PoolEmpty
            body = item["body"].encode()
            answer = await conn.send(
                http_request("POST", "/oauth2/token", host, item["headers"], body)
            )
            if answer.status != 200:
                raise failure_of(answer)
            if expected not in answer.body:
                sample = answer.body[:SAMPLE_CHARS].decode(errors="replace")
                raise Failure(f"200 without {expected.decode()}", sample)

        return one

    return make


def refresh_chain(job: dict[str, Any], pool: Pool) -> Callable[[int], Operation]:
    """Rotation as a client does it: each connection starts from a token of the pool and
    sends the refresh token of each answer with its next request; after a failure it
    starts again from a new token of the pool. ``refresh_extra`` is appended to each body
    (the peer's ``&resource=...``)."""
    host = job["host_header"]
    extra: str = job.get("refresh_extra", "")
    headers = {
        "Authorization": job["authorization"],
        "Content-Type": "application/x-www-form-urlencoded",
    }

    def make(_: int) -> Operation:
        current: list[str] = []

        async def one(conn: Connection) -> None:
            if not current:
                token = pool.take()
                if token is None:
                    raise PoolEmpty
                current.append(token)
            body = f"grant_type=refresh_token&refresh_token={quote(current.pop(), safe='')}{extra}"
            answer = await conn.send(
                http_request("POST", "/oauth2/token", host, headers, body.encode())
            )
            if answer.status != 200:
                raise failure_of(answer)
            if b'"access_token"' not in answer.body:
                sample = answer.body[:SAMPLE_CHARS].decode(errors="replace")
                raise Failure("200 without access_token", sample)
            try:
                token = json.loads(answer.body)["refresh_token"]
            except (ValueError, KeyError, TypeError):
                raise Failure(
                    "200 without refresh_token", answer.body[:SAMPLE_CHARS].decode(errors="replace")
                ) from None
            current.append(token)

        return one

    return make


def signin(job: dict[str, Any], pool: Pool) -> Callable[[int], Operation]:
    host = job["host_header"]
    headers = {"Content-Type": "application/json"}

    def make(_: int) -> Operation:
        async def one(conn: Connection) -> None:
            item = pool.take()
            if item is None:
                raise PoolEmpty
            challenge, email, password = item
            body = json.dumps({"challenge": challenge, "email": email, "password": password})
            answer = await conn.send(
                http_request("POST", "/api/v1/auth/login", host, headers, body.encode())
            )
            if answer.status != 200:
                raise failure_of(answer)

        return one

    return make


class PoolEmpty(Exception):
    """No single-use item left: this connection stops."""
