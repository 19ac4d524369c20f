"""One back-channel logout POST (OIDC Back-Channel Logout 1.0 §2.5, §2.8; contract §6
rules 3-5) against real HTTP servers on 127.0.0.1, and the choice of recipients against a
migrated database."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.db.migrate import upgrade
from idp_common.storage.db.models import Client
from logout_dispatcher.delivery import new_http_client, post_logout_token
from logout_dispatcher.recipients import Recipient, backchannel_recipients
from tests.harness import infra
from tests.harness.receivers import Receiver

pytestmark = pytest.mark.integration

TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzaWQiOiJzIn0.c2lnbmF0dXJl"


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """The receivers of these tests listen on 127.0.0.1 (SVC_BACKCHANNEL_ALLOW_PRIVATE)."""
    async with new_http_client(allow_private=True) as client:
        yield client


# --- a raw recorder, for what Receiver does not show ---------------------------------------------


@dataclass
class Raw:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class RawServer:
    """An HTTP server that keeps each request's raw body and answers ``status`` with
    ``headers`` (a redirect's ``Location``, say)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    requests: list[Raw] = field(default_factory=list)

    def url_for(self, path: str) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/{path.lstrip('/')}"

    def __enter__(self) -> RawServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                owner.requests.append(
                    Raw(
                        self.command,
                        self.path,
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                    )
                )
                self.send_response(owner.status)
                for name, value in owner.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST

            def log_message(self, *_: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


@pytest.fixture
def raw_server() -> Iterator[RawServer]:
    with RawServer() as server:
        yield server


# --- post_logout_token -------------------------------------------------------------------------


@pytest.mark.parametrize("status", [200, 204, 500, 400])
async def test_the_answer_status_is_the_outcome(http: httpx.AsyncClient, status: int) -> None:
    with Receiver(status=status) as receiver:
        attempt = await post_logout_token(http, receiver.url, TOKEN)
        got = receiver.snapshot()
    assert attempt.status_code == status
    assert attempt.error is None
    assert 0 <= attempt.elapsed_ms < 2000
    assert len(got) == 1
    assert got[0].form == {"logout_token": TOKEN}


async def test_the_body_is_the_form_encoded_logout_token_alone(
    http: httpx.AsyncClient, raw_server: RawServer
) -> None:
    token = TOKEN + "+/=&%"  # characters that form encoding must escape
    attempt = await post_logout_token(http, raw_server.url_for("/bcl"), token)
    assert attempt.status_code == 200
    (request,) = raw_server.requests
    assert request.method == "POST"
    assert request.path == "/bcl"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.body == b"logout_token=" + quote(token, safe="").encode()
    assert "authorization" not in request.headers and "cookie" not in request.headers


async def test_a_redirect_is_not_followed(http: httpx.AsyncClient) -> None:
    with Receiver() as target, RawServer(status=302) as redirector:
        redirector.headers["Location"] = target.url
        attempt = await post_logout_token(http, redirector.url_for("/bcl"), TOKEN)
        await asyncio.sleep(0.2)  # a followed redirect would have arrived by now
        assert attempt.status_code == 302
        assert attempt.error is None
        assert len(redirector.requests) == 1
        assert target.snapshot() == []


async def test_a_closed_port_is_no_answer(http: httpx.AsyncClient) -> None:
    uri = f"http://127.0.0.1:{infra.closed_port()}/bcl"
    attempt = await post_logout_token(http, uri, TOKEN)
    assert attempt.status_code == 0
    assert attempt.error == "connect"
    assert attempt.elapsed_ms < 1000


@pytest.mark.parametrize(
    "uri", ["https://xn--zz.example/bcl", "https://xn--/bcl", "http://127.0.0.1:99999/bcl"]
)
async def test_a_uri_that_cannot_be_sent_to_is_no_answer_not_a_crash(
    http: httpx.AsyncClient, uri: str
) -> None:
    """Such URIs are refused by the admin API; a row written otherwise must still not
    crash the fan-out (the event would be redelivered and the others told again)."""
    attempt = await post_logout_token(http, uri, TOKEN)
    assert attempt.status_code == 0
    assert attempt.error is not None


async def test_an_application_that_never_answers_is_given_up_after_five_seconds(
    http: httpx.AsyncClient,
) -> None:
    with Receiver(hang=True) as silent:
        started = time.monotonic()
        attempt = await post_logout_token(http, silent.url, TOKEN)
        elapsed = time.monotonic() - started
        got = silent.snapshot()
    assert attempt.status_code == 0
    assert attempt.error == "timeout"
    assert 4.9 <= elapsed <= 5.6, elapsed
    assert 4900 <= attempt.elapsed_ms <= 5600, attempt.elapsed_ms
    assert len(got) == 1  # it did receive the token; nothing was sent again


async def test_a_hanging_application_does_not_delay_another(http: httpx.AsyncClient) -> None:
    with Receiver(hang=True) as silent, Receiver() as healthy:
        started = time.monotonic()
        hanging = asyncio.create_task(post_logout_token(http, silent.url, TOKEN))
        attempt = await post_logout_token(http, healthy.url, TOKEN)
        answered = time.monotonic() - started
        arrived = await asyncio.to_thread(silent.wait_for, 1, 2.0)
        assert len(arrived) == 1  # both were in flight together
        assert not hanging.done()
        hanging.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await hanging
    assert attempt.status_code == 200
    assert answered < 1.0, answered


async def test_a_hundred_posts_at_once_all_arrive(http: httpx.AsyncClient) -> None:
    paths = [f"/app-{n}" for n in range(100)]
    with Receiver() as receiver:
        started = time.monotonic()
        attempts = await asyncio.gather(
            *(post_logout_token(http, receiver.url_for(p), f"{TOKEN}.{p}") for p in paths)
        )
        elapsed = time.monotonic() - started
        got = receiver.snapshot()
    assert [a.status_code for a in attempts] == [200] * 100
    assert sorted(r.path for r in got) == sorted(paths)
    assert {r.path: r.form["logout_token"] for r in got} == {p: f"{TOKEN}.{p}" for p in paths}
    assert elapsed < 5.0  # in parallel: none waited for a free connection until its timeout


# --- backchannel_recipients ----------------------------------------------------------------------


@pytest.fixture
async def db_sessions() -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """Sessions on a migrated database of this test's own (dropped afterwards)."""
    name = f"idp_t_{secrets.token_hex(8)}"
    url = await infra.create_database(name)
    engine = create_engine(url)
    try:
        await upgrade(url)
        yield create_session_factory(engine)
    finally:
        await engine.dispose()
        await infra.drop_database(name)


async def add_clients(
    sessions: async_sessionmaker[AsyncSession], uris: dict[str, str | None]
) -> dict[str, str]:
    """Create one client per entry (``backchannel_logout_uri`` as given); return the
    generated client_ids by the given names."""
    ids = {name: f"{name}-{uuid.uuid4().hex[:8]}" for name in uris}
    async with sessions.begin() as db:
        db.add_all(
            Client(
                client_id=ids[name],
                name=name,
                type="confidential",
                redirect_uris=["http://127.0.0.1:9/cb"],
                grant_types=["authorization_code"],
                backchannel_logout_uri=uri,
            )
            for name, uri in uris.items()
        )
    return ids


async def test_recipients_are_the_clients_with_a_uri_in_the_order_reached(
    db_sessions: async_sessionmaker[AsyncSession],
) -> None:
    ids = await add_clients(
        db_sessions,
        {
            "first": "https://first.example/bcl",
            "silent": None,
            "second": "https://second.example/bcl",
            "third": "http://127.0.0.1:8000/logout",
        },
    )
    reached = [
        ids["third"],
        "never-registered",
        ids["first"],
        ids["silent"],
        ids["third"],
        ids["second"],
        ids["first"],
    ]
    async with db_sessions() as db:
        recipients = await backchannel_recipients(db, reached)
    assert recipients == [
        Recipient(client_id=ids["third"], uri="http://127.0.0.1:8000/logout"),
        Recipient(client_id=ids["first"], uri="https://first.example/bcl"),
        Recipient(client_id=ids["second"], uri="https://second.example/bcl"),
    ]


async def test_no_recipients_without_a_uri_or_without_clients(
    db_sessions: async_sessionmaker[AsyncSession],
) -> None:
    ids = await add_clients(db_sessions, {"plain": None, "other": None})
    async with db_sessions() as db:
        assert await backchannel_recipients(db, [ids["plain"], ids["other"]]) == []
        assert await backchannel_recipients(db, ["unknown-1", "unknown-2"]) == []
        assert await backchannel_recipients(db, []) == []
