"""The token service's lean transport (``SVC_LEAN_ROUTES``, issue #24 item 3) answers
exactly as the full Litestar stack does: every request below goes to the stack's token
service (lean) and to one started with ``SVC_LEAN_ROUTES=false``, and the two answers have
the same status, the same headers (name and value; the request id's value and the date
aside) and the same body (for a token, the same claims but for the per-token ones). The
requests are the cases where the layers the lean path skips would show: errors with their
own headers, a body over the route's limit, a body that is not a form, a caller's request
id, a browser's ``Origin``, a wrong Host; and the authorization request by GET in each of
its answers (error page, redirect to sign in, error redirect, code), the code or challenge
in the ``Location`` aside."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from idp_common.observability import tracing
from idp_common.protocol.constants import SESSION_COOKIE_NAME
from tests.harness import records
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from token_service.lean_routes import LeanRoutes

pytestmark = pytest.mark.integration

VARYING_HEADERS = {"date", "server"}
ONE_PER_REQUEST = {"x-request-id"}  # compared by presence
# Claims that differ between any two tokens issued for the same request.
VARYING_CLAIMS = {"jti", "iat", "exp", "nbf"}
API_SCOPE = "lean:read"
# What a redirect carries that is new each time: the code, the sign-in challenge.
ONE_PER_REDIRECT = re.compile(r"((?:^|[?&])(?:code|challenge)=)[^&]+")


@pytest.fixture(scope="module")
def full_stack(stack: Stack) -> Iterator[str]:
    with stack.extra_service("token", {"SVC_LEAN_ROUTES": "false"}) as url:
        yield url


@pytest.fixture(scope="module")
def machine(stack: Stack) -> tf.AppClient:
    tf.create_api(stack, [API_SCOPE])
    return tf.create_client(stack, scopes=[API_SCOPE, "openid"], grant_types=["client_credentials"])


def claims_of(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    data: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return {k: v for k, v in data.items() if k not in VARYING_CLAIMS}


def comparable(
    response: httpx.Response, ignored: frozenset[str] = frozenset()
) -> tuple[int, list[tuple[str, str]], Any]:
    headers = sorted(
        (name.lower(), "(present)" if name.lower() in ONE_PER_REQUEST else value)
        for name, value in response.headers.multi_items()
        if name.lower() not in VARYING_HEADERS | ignored
    )
    headers = [
        (name, ONE_PER_REDIRECT.sub(r"\1(new)", value) if name == "location" else value)
        for name, value in headers
    ]
    body: Any = response.content
    if response.content and response.headers.get("content-type", "").startswith("application/json"):
        body = response.json()
        if isinstance(body, dict) and "access_token" in body:
            body = {**body, "access_token": claims_of(body["access_token"])}
    return response.status_code, headers, body


def both(
    stack: Stack,
    full: str,
    method: str,
    path: str,
    ignored: frozenset[str] = frozenset(),
    **kwargs: Any,
) -> list[Any]:
    answers = []
    cookies = kwargs.pop("cookies", None)
    for base in (stack.service_url("token"), full):
        with httpx.Client(base_url=base, timeout=30, cookies=cookies) as client:
            answers.append(comparable(client.request(method, path, **kwargs), ignored))
    return answers


CASES: dict[str, Any] = {
    "client_credentials": lambda m: (
        "POST",
        "/oauth2/token",
        {
            "data": {"grant_type": "client_credentials", "scope": API_SCOPE},
            "headers": m.basic(),
        },
    ),
    "wrong secret (401, WWW-Authenticate Basic)": lambda m: (
        "POST",
        "/oauth2/token",
        {
            "data": {"grant_type": "client_credentials"},
            "headers": m.basic("not-the-secret"),
        },
    ),
    "no grant_type": lambda m: ("POST", "/oauth2/token", {"data": {"scope": API_SCOPE}}),
    "JSON body": lambda m: ("POST", "/oauth2/token", {"json": {"grant_type": "x"}}),
    "repeated parameter": lambda m: (
        "POST",
        "/oauth2/token",
        {
            "content": b"grant_type=client_credentials&grant_type=client_credentials",
            "headers": {"Content-Type": "application/x-www-form-urlencoded", **m.basic()},
        },
    ),
    "body over the limit": lambda m: (
        "POST",
        "/oauth2/token",
        {
            "content": b"grant_type=" + b"a" * (40 * 1024 * 1024),
            "headers": {"Content-Type": "application/x-www-form-urlencoded"},
        },
    ),
    "caller's request id": lambda m: (
        "POST",
        "/oauth2/token",
        {
            "data": {"grant_type": "client_credentials", "scope": API_SCOPE},
            "headers": {**m.basic(), "X-Request-Id": "caller-chosen-1"},
        },
    ),
    "browser Origin": lambda m: (
        "POST",
        "/oauth2/token",
        {
            "data": {"grant_type": "client_credentials", "scope": API_SCOPE},
            "headers": {**m.basic(), "Origin": "https://console.example"},
        },
    ),
    "userinfo without a token": lambda m: ("GET", "/oauth2/userinfo", {}),
    "userinfo with a bad token": lambda m: (
        "POST",
        "/oauth2/userinfo",
        {
            "headers": {"Authorization": "Bearer not.a.token"},
        },
    ),
    "introspection of an unknown token": lambda m: (
        "POST",
        "/oauth2/introspect",
        {
            "data": {"token": "unknown"},
            "headers": m.basic(),
        },
    ),
    "introspection by a wrong secret": lambda m: (
        "POST",
        "/oauth2/introspect",
        {
            "data": {"token": "unknown"},
            "headers": m.basic("wrong"),
        },
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_lean_answers_as_the_full_stack(
    stack: Stack, full_stack: str, machine: tf.AppClient, case: str
) -> None:
    method, path, kwargs = CASES[case](machine)
    # Over the limit, the drain (idp_common.web.drain) adds Connection: close when the rest
    # of the body had not arrived yet: a race of the sender, on either transport.
    ignored = frozenset({"connection"}) if case == "body over the limit" else frozenset()
    lean, full = both(stack, full_stack, method, path, ignored, **kwargs)
    assert lean == full
    status, headers, _ = lean
    assert ("cache-control", "no-store") in headers
    if case == "client_credentials":
        assert status == 200
    if case == "caller's request id":
        with httpx.Client(base_url=stack.service_url("token")) as client:
            answer = client.request(method, path, **kwargs)
        assert answer.headers["x-request-id"] == "caller-chosen-1"
    if case == "body over the limit":
        assert status == 413


def test_an_active_token_introspects_alike(
    stack: Stack, full_stack: str, machine: tf.AppClient
) -> None:
    issued = httpx.post(
        stack.service_url("token") + "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": API_SCOPE},
        headers=machine.basic(),
    ).json()["access_token"]
    lean, full = both(
        stack,
        full_stack,
        "POST",
        "/oauth2/introspect",
        data={"token": issued},
        headers=machine.basic(),
    )
    assert lean == full
    assert lean[2]["active"] is True


def test_the_token_service_installs_the_lean_routes(stack: Stack, monkeypatch: Any) -> None:
    """In process: installed by default, not with ``SVC_LEAN_ROUTES=false`` nor while
    tracing is on (its spans come from Litestar's middleware)."""
    from idp_common.config import load_settings  # noqa: PLC0415 - after the env is set
    from token_service.app import create_app  # noqa: PLC0415

    for name, value in stack.env.items():
        monkeypatch.setenv(name, value)
    lean = create_app(load_settings()).app.asgi_handler
    assert isinstance(lean, LeanRoutes)
    assert set(lean.routes) == {
        ("POST", "/oauth2/token"),
        ("GET", "/oauth2/userinfo"),
        ("POST", "/oauth2/userinfo"),
        ("POST", "/oauth2/introspect"),
        ("GET", "/oauth2/authorize"),
    }
    monkeypatch.setenv("SVC_LEAN_ROUTES", "false")
    assert not isinstance(create_app(load_settings()).app.asgi_handler, LeanRoutes)
    monkeypatch.setenv("SVC_LEAN_ROUTES", "true")
    monkeypatch.setattr(tracing, "enabled", lambda: True)
    monkeypatch.setattr(tracing, "server_middleware", lambda: [])
    assert not isinstance(create_app(load_settings()).app.asgi_handler, LeanRoutes)


def test_host_header_the_router_refuses_is_refused_alike(
    stack: Stack, full_stack: str, machine: tf.AppClient
) -> None:
    lean, full = both(
        stack,
        full_stack,
        "POST",
        "/oauth2/token",
        data={"grant_type": "client_credentials"},
        headers={**machine.basic(), "Host": "bad host\x7f"},
    )
    assert lean == full
    assert lean[0] == 400


@pytest.fixture(scope="module")
def browser(stack: Stack) -> tuple[tf.AppClient, str]:
    """A code-flow client and the cookie of a session whose person consented to it."""
    client = tf.create_client(stack)
    person = records.create_user(stack)
    records.give_consent(stack, client.client_id, person.id, ["openid", "profile"])
    cookie, _ = records.create_browser_session(stack, person.id)
    return client, cookie


def authorization(client_id: str, **extra: str) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": tf.REDIRECT,
        "scope": "openid profile",
        "state": "st-1",
        **extra,
    }
    return "/oauth2/authorize?" + urlencode(params)


AUTHORIZE_CASES: dict[str, Any] = {
    "unknown client (error page)": lambda c: (authorization("not-a-client"), False, 400),
    "no session (to sign in)": lambda c: (authorization(c), False, 302),
    "prompt=none, no session (error redirect)": lambda c: (
        authorization(c, prompt="none"),
        False,
        302,
    ),
    "signed in and consented (code)": lambda c: (authorization(c), True, 302),
    "repeated parameter (error redirect)": lambda c: (authorization(c) + "&scope=x", True, 302),
    "not UTF-8 (error page)": lambda c: (authorization(c) + "&state=%ff", True, 400),
}


@pytest.mark.parametrize("case", list(AUTHORIZE_CASES))
def test_an_authorization_request_is_answered_alike(
    stack: Stack, full_stack: str, browser: tuple[tf.AppClient, str], case: str
) -> None:
    client, cookie = browser
    path, signed_in, expected = AUTHORIZE_CASES[case](client.client_id)
    cookies = {SESSION_COOKIE_NAME: cookie} if signed_in else {}
    lean, full = both(stack, full_stack, "GET", path, cookies=cookies)
    assert lean == full
    status, headers, _ = lean
    assert status == expected
    location = dict(headers).get("location", "")
    if case == "signed in and consented (code)":
        assert location.startswith(tf.REDIRECT + "?code=(new)")
    if case == "no session (to sign in)":
        assert "/login?challenge=(new)" in location
