"""A single-page application on another origin in real Chromium (issue #27, acceptance 3;
docs/oauth/browser-apps.md).

The page (``tests/e2e/web_origins_spa/``) is served by a small static server of this
test on ``http://127.0.0.1:<free port>``, another origin than the proxy's. It uses
``oauth4webapi`` (pinned in tests/interop/node/package.json; its ESM build is served to
the page from node_modules, no CDN): discovery, the code flow with PKCE (the person signs
in on the hosted page), the token call and userinfo, every one a cross-origin fetch.

Second case: the same page served from an origin that is one of the client's redirect
URIs but not in its ``allowedWebOrigins``: sign-in works (a redirect is no fetch), the
token call is refused by the browser (fetch rejects with a TypeError), and the token
endpoint's answer carried no ``Access-Control-Allow-Origin``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.harness import records
from tests.harness.browser import PageLog
from tests.harness.console import Person, fill_sign_in_page
from tests.harness.stack import Stack
from tests.harness.stamps import announce_client_change

pytestmark = pytest.mark.e2e
HERE = Path(__file__).parent
SPA_DIR = HERE / "web_origins_spa"
OAUTH4WEBAPI = (
    HERE.parent / "interop" / "node" / "node_modules" / "oauth4webapi" / "build" / "index.js"
)
TOKEN_PATH = "/oauth2/token"


class _SpaHandler(SimpleHTTPRequestHandler):
    """The page's files; ``/callback`` is the page too; ``/config.json`` names the
    provider and the client (read at each request: the client is registered once the
    server's origin is known)."""

    config: dict[str, str]

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/config.json":
            self._send(json.dumps(self.config).encode(), "application/json")
        elif path == "/oauth4webapi.js":
            self._send(OAUTH4WEBAPI.read_bytes(), "text/javascript")
        elif path in ("/", "/callback"):
            self._send((SPA_DIR / "index.html").read_bytes(), "text/html; charset=utf-8")
        elif path == "/app.js":
            self._send((SPA_DIR / "app.js").read_bytes(), "text/javascript")
        else:
            self.send_error(404)

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def spa_server(config: dict[str, str]) -> Iterator[str]:
    """The page on ``http://127.0.0.1:<free port>``, up while the block runs; its origin.
    ``config`` is served as /config.json as it is at each request."""
    handler = type("Handler", (_SpaHandler,), {"config": config})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(SPA_DIR)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def register_spa(stack: Stack, allowed: list[str], redirect_uris: list[str]) -> str:
    """A public client with these redirect URIs and ``allowedWebOrigins``, announced to
    the token workers as the admin API announces a change; its client_id."""
    if not OAUTH4WEBAPI.is_file():
        pytest.fail(f"{OAUTH4WEBAPI} is missing: run `npm ci` in tests/interop/node")
    app = records.create_client(
        stack, public=True, skip_consent=True, redirect_uri=redirect_uris[0]
    )
    records.query(
        stack,
        "UPDATE clients SET redirect_uris = $1, allowed_web_origins = $2 WHERE client_id = $3"
        " RETURNING id",
        redirect_uris,
        allowed,
        app.client_id,
    )
    announce_client_change(stack)
    return app.client_id


@dataclass
class TokenCalls:
    """What Chromium's network layer saw of the token endpoint (DevTools protocol): the
    answers' raw headers by request, and why a request failed. A CORS-refused answer is
    hidden from the page and from Playwright's events, not from DevTools."""

    urls: dict[str, str] = field(default_factory=dict)
    headers: dict[str, dict[str, str]] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    failures: dict[str, dict[str, Any]] = field(default_factory=dict)

    def answers(self) -> list[tuple[int, dict[str, str]]]:
        """(status, headers with lower-case names) of each token call but preflights."""
        return [
            (self.statuses[rid], {k.lower(): v for k, v in self.headers[rid].items()})
            for rid, url in self.urls.items()
            if url.endswith(TOKEN_PATH) and rid in self.headers
        ]


def watch_token_calls(page: Page) -> TokenCalls:
    calls = TokenCalls()
    cdp = page.context.new_cdp_session(page)

    def sent(event: dict[str, Any]) -> None:
        if event["request"]["method"] == "POST":
            calls.urls[event["requestId"]] = event["request"]["url"]

    def extra(event: dict[str, Any]) -> None:
        calls.headers[event["requestId"]] = event["headers"]
        calls.statuses[event["requestId"]] = event["statusCode"]

    def failed(event: dict[str, Any]) -> None:
        calls.failures[event["requestId"]] = event

    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.responseReceivedExtraInfo", extra)
    cdp.on("Network.loadingFailed", failed)
    cdp.send("Network.enable")
    return calls


def _sign_in(page: Page, origin: str, person: records.TestUser) -> None:
    page.goto(origin + "/")
    page.get_by_role("button", name="Sign in").click()
    fill_sign_in_page(page, Person(person.email, person.password))
    page.wait_for_url(origin + "/callback?**")


def test_a_spa_on_another_origin_signs_in_and_reads_userinfo(
    stack: Stack, page: Page, page_log: PageLog
) -> None:
    person = records.create_user(stack)
    config = {"issuer": stack.issuer}
    with spa_server(config) as origin:
        assert origin != stack.issuer  # another port: another origin
        config["client_id"] = register_spa(stack, [origin], [origin + "/callback"])
        calls = watch_token_calls(page)
        _sign_in(page, origin, person)
        expect(page.locator("body")).to_have_attribute("data-outcome", "signed-in")
    userinfo = json.loads(page.locator("#userinfo").text_content() or "{}")
    assert userinfo["sub"] == person.id
    assert userinfo["email"] == person.email
    assert [(status, h.get("access-control-allow-origin")) for status, h in calls.answers()] == [
        (200, origin)
    ]
    assert page_log.problems() == []


def test_an_origin_the_client_does_not_allow_is_refused_by_the_browser(
    stack: Stack, page: Page, page_log: PageLog
) -> None:
    person = records.create_user(stack)
    config = {"issuer": stack.issuer}
    with spa_server(config) as allowed, spa_server(config) as other:
        # Both callbacks are registered; only the first origin is allowed.
        redirect_uris = [allowed + "/callback", other + "/callback"]
        config["client_id"] = register_spa(stack, [allowed], redirect_uris)
        calls = watch_token_calls(page)
        _sign_in(page, other, person)
        expect(page.locator("body")).to_have_attribute("data-outcome", "cors-refused")
        expect(page.locator("#status")).to_contain_text("TypeError")
    assert page.locator("#userinfo").text_content() == ""
    # The provider answered (a form POST is a "simple" request: no preflight) and named no
    # origin; Chromium failed the fetch for that reason.
    answers = calls.answers()
    assert [status for status, _ in answers] == [200], answers
    assert "access-control-allow-origin" not in answers[0][1]
    reasons = [f.get("corsErrorStatus", {}).get("corsError") for f in calls.failures.values()]
    assert reasons == ["MissingAllowOriginHeader"], calls.failures
    blocked = [m.text for m in page_log.console if "CORS policy" in m.text]
    assert blocked, page_log.problems()
    assert TOKEN_PATH in blocked[0]
