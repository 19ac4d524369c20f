"""Hostile forms and query strings at the token service (issue #21).

The form-posted endpoints (token, introspection, revocation) and the browser's
authorization endpoint refuse ten thousand fields, a repeated parameter and bytes that
are not UTF-8 with a clear error (RFC 6749 ``invalid_request``; a 400 page where nothing
may be sent to the client), quickly, writing nothing. A CR/LF smuggled into a parameter
never reaches a response header: it stays percent-encoded in the ``Location``.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.harness.pkce import pkce_pair
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_client
from tests.security.hostile_support import (
    assert_still_answering,
    raw_exchange,
    unchanged_database,
)

pytestmark = pytest.mark.integration
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
MANY_FIELDS = "&".join(f"f{n}=v" for n in range(10_000)).encode()
FORM_ENDPOINTS = [
    "/oauth2/token",
    "/oauth2/introspect",
    "/oauth2/revoke",
    "/oauth2/par",
    "/oauth2/device_authorization",
]


def assert_invalid_request(answer: httpx.Response, mentions: str) -> None:
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    body = answer.json()
    assert body["error"] == "invalid_request", body
    assert mentions in body["error_description"], body


@pytest.mark.parametrize("path", FORM_ENDPOINTS)
def test_ten_thousand_form_fields_are_refused_quickly(
    stack: Stack, proxy: httpx.Client, path: str
) -> None:
    with unchanged_database(stack):
        started = time.monotonic()
        answer = proxy.post(
            path, content=b"grant_type=client_credentials&" + MANY_FIELDS, headers=FORM
        )
        elapsed = time.monotonic() - started
    assert_invalid_request(answer, "form")
    assert elapsed < 2, elapsed
    assert_still_answering(stack)


@pytest.mark.parametrize("path", FORM_ENDPOINTS)
def test_a_form_that_is_not_utf8_is_invalid_request(
    stack: Stack, proxy: httpx.Client, path: str
) -> None:
    with unchanged_database(stack):
        answer = proxy.post(path, content=b"token=a\xff\xfe&grant_type=x\xc3\x28", headers=FORM)
    assert_invalid_request(answer, "form")


def test_a_repeated_parameter_is_invalid_request_naming_it(proxy: httpx.Client) -> None:
    body = b"grant_type=client_credentials&client_id=a&client_id=b"
    assert_invalid_request(proxy.post("/oauth2/token", content=body, headers=FORM), "client_id")
    body = b"grant_type=client_credentials&grant_type=authorization_code"
    assert_invalid_request(proxy.post("/oauth2/token", content=body, headers=FORM), "grant_type")


def test_authorize_refuses_ten_thousand_form_fields_quickly(
    stack: Stack, proxy: httpx.Client
) -> None:
    rp = create_client(stack, skip_consent=True)
    with unchanged_database(stack):
        started = time.monotonic()
        answer = proxy.post(
            "/oauth2/authorize",
            content=f"client_id={rp.client_id}&".encode() + MANY_FIELDS,
            headers=FORM,
        )
        elapsed = time.monotonic() - started
    assert answer.status_code == 400, answer.text
    assert "text/html" in answer.headers["content-type"]
    assert "too many" in answer.text
    assert elapsed < 2, elapsed
    assert_still_answering(stack)


def test_authorize_refuses_a_form_that_is_not_utf8(stack: Stack, proxy: httpx.Client) -> None:
    rp = create_client(stack, skip_consent=True)
    with unchanged_database(stack):
        answer = proxy.post(
            "/oauth2/authorize",
            content=f"client_id={rp.client_id}&state=\xff".encode("latin-1"),
            headers=FORM,
        )
    assert answer.status_code == 400, answer.text
    assert "UTF-8" in answer.text


def test_authorize_query_that_is_not_utf8_is_no_500(stack: Stack, proxy: httpx.Client) -> None:
    rp = create_client(stack, skip_consent=True)
    for query in (f"client_id={rp.client_id}%FF", f"client_id={rp.client_id}&state=%FF%FE"):
        answer = proxy.get(f"/oauth2/authorize?{query}")
        assert answer.status_code < 500, (query, answer.text)
    assert_still_answering(stack)


def test_cr_lf_in_state_never_reaches_a_response_header(stack: Stack, proxy: httpx.Client) -> None:
    rp = create_client(stack, skip_consent=True)
    _, challenge = pkce_pair()
    injected = "x\r\nSet-Cookie: planted=1\r\nLocation: https://evil.example"
    # An unsupported response type: an error redirect to the client carrying ``state``.
    answer = proxy.get(
        "/oauth2/authorize",
        params={
            "response_type": "token",
            "client_id": rp.client_id,
            "redirect_uri": rp.redirect_uri,
            "scope": "openid",
            "state": injected,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        },
    )
    assert answer.status_code == 302, answer.text
    assert "set-cookie" not in answer.headers
    location = answer.headers["location"]
    assert "\r" not in location and "\n" not in location
    assert location.startswith(rp.redirect_uri)
    assert parse_qs(urlsplit(location).query)["state"] == [injected]


def test_a_cr_inside_a_header_at_the_service_port_is_refused(stack: Stack) -> None:
    """Behind the proxy a bare CR never passes; the token service's server refuses it too."""
    request = (
        b"GET /oauth2/userinfo HTTP/1.1\r\nHost: idp\r\n"
        b"Authorization: Bearer abc\rSet-Cookie: planted=1\r\nConnection: close\r\n\r\n"
    )
    try:
        answer = raw_exchange(stack.service_url("token"), request)
    except (ValueError, IndexError):  # closed without an answer: refused as well
        answer = None
    if answer is not None:
        assert answer.status in (400, 401), answer
        assert "set-cookie" not in answer.headers
        assert "planted" not in " ".join(answer.headers.get("www-authenticate", []))
    assert_still_answering(stack)
