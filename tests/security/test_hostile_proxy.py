"""Hostile input refused by the proxy itself (issue #21): every refusal in the path's format.

When nginx refuses a request before any service sees it (a body over the location's
limit, a header or cookie over the header buffers, a request line over its limit, a
request line or header that is not HTTP), the client gets a clear 4xx in the format of
the path: an RFC 6749 error object on ``/oauth2/*``, RFC 9457 problem+json on the JSON
APIs, never nginx's HTML page. Nothing is written and the stack still answers.
"""

from __future__ import annotations

import httpx
import pytest

from tests.harness.stack import Stack
from tests.security.hostile_support import (
    assert_proxy_oauth_error,
    assert_proxy_problem,
    assert_still_answering,
    raw_exchange,
    unchanged_database,
)

pytestmark = pytest.mark.integration
SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "referrer-policy")
#: (method, path) of each family of API paths: the token service's, then the JSON APIs.
OAUTH_PATHS = [("POST", "/oauth2/token"), ("POST", "/oauth2/introspect"), ("GET", "/oauth2/x")]
PROBLEM_PATHS = [
    ("POST", "/admin/users"),
    ("PATCH", "/entity/profile"),
    ("POST", "/api/v1/auth/login"),
]
#: Beyond nginx's large_client_header_buffers (8 KiB a line).
HUGE = 20_000


def assert_refused(
    answer: httpx.Response, path: str, status: int, *, code: str, error: str = "invalid_request"
) -> None:
    if path.startswith("/oauth2/"):
        assert_proxy_oauth_error(answer, status, error)
        assert answer.headers["cache-control"] == "no-store"
    else:
        assert_proxy_problem(answer, status, code)
    for name in SECURITY_HEADERS:
        assert len(answer.headers.get_list(name)) == 1, (name, answer.headers)


@pytest.mark.parametrize(("method", "path"), OAUTH_PATHS + PROBLEM_PATHS)
def test_a_body_over_the_limit_is_413_in_the_format_of_the_path(
    stack: Stack, proxy: httpx.Client, method: str, path: str
) -> None:
    with unchanged_database(stack):
        answer = proxy.request(
            method,
            path,
            content=b"a=" + b"b" * (2 * 1024 * 1024),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
    assert_refused(answer, path, 413, code="proxy.body_too_large")
    assert_still_answering(stack)


@pytest.mark.parametrize(("method", "path"), OAUTH_PATHS + PROBLEM_PATHS)
def test_an_oversized_cookie_is_431_in_the_format_of_the_path(
    stack: Stack, proxy: httpx.Client, method: str, path: str
) -> None:
    with unchanged_database(stack):
        answer = proxy.request(method, path, headers={"Cookie": "idp_session=" + "c" * HUGE})
    assert_refused(answer, path, 431, code="proxy.header_too_large")
    assert_still_answering(stack)


@pytest.mark.parametrize(("method", "path"), OAUTH_PATHS[:1] + PROBLEM_PATHS[:1])
def test_too_many_headers_are_431_too(
    stack: Stack, proxy: httpx.Client, method: str, path: str
) -> None:
    # Each header fits a buffer; together they do not (4 buffers of 8 KiB).
    headers = {f"X-Filler-{n}": "h" * 7000 for n in range(6)}
    answer = proxy.request(method, path, headers=headers)
    assert_refused(answer, path, 431, code="proxy.header_too_large")


@pytest.mark.parametrize("path", ["/oauth2/authorize", "/admin/users", "/entity/profile"])
def test_ten_thousand_query_parameters_are_414_problem(stack: Stack, path: str) -> None:
    """nginx refuses a request line longer than its buffer before it has parsed the path,
    so this refusal is problem+json on every path, ``/oauth2/`` included (httpx itself
    refuses URLs this long: a raw socket)."""
    query = "&".join(f"p{n}=v" for n in range(10_000))
    request = f"GET {path}?{query} HTTP/1.1\r\nHost: idp\r\nConnection: close\r\n\r\n"
    with unchanged_database(stack):
        answer = raw_exchange(stack.proxy_url, request.encode())
    assert_proxy_problem(answer, 414, "proxy.uri_too_long")
    for name in SECURITY_HEADERS:
        assert len(answer.headers.get(name, [])) == 1, (name, answer.headers)
    assert_still_answering(stack)


@pytest.mark.parametrize("path", ["/oauth2/token", "/admin/users"])
def test_a_bare_cr_in_a_header_value_is_400_in_the_format_of_the_path(
    stack: Stack, path: str
) -> None:
    # A header splitting attempt: a lone CR inside a value (a CR LF would end the line).
    request = (
        f"POST {path} HTTP/1.1\r\nHost: idp\r\nX-Note: a\rSet-Cookie: planted=1\r\n"
        "Content-Length: 0\r\nConnection: close\r\n\r\n"
    ).encode()
    with unchanged_database(stack):
        answer = raw_exchange(stack.proxy_url, request)
    assert "set-cookie" not in answer.headers
    if path.startswith("/oauth2/"):
        assert_proxy_oauth_error(answer, 400, "invalid_request")
    else:
        assert_proxy_problem(answer, 400, "proxy.bad_request")
    assert_still_answering(stack)


@pytest.mark.parametrize(
    "request_line",
    [
        b"GET /admin/users?state=a\rLocation:evil HTTP/1.1",  # CR inside the request line
        b"GET /admin/\x00users HTTP/1.1",  # a NUL in the path
        b"NOT HTTP AT ALL",
    ],
)
def test_a_request_line_that_is_not_http_is_400_problem(stack: Stack, request_line: bytes) -> None:
    answer = raw_exchange(
        stack.proxy_url, request_line + b"\r\nHost: idp\r\nConnection: close\r\n\r\n"
    )
    assert_proxy_problem(answer, 400, "proxy.bad_request")
    assert "location" not in answer.headers
    assert_still_answering(stack)


@pytest.mark.parametrize(
    ("framing", "status"),
    [
        (b"Content-Length: 5\r\nContent-Length: 40\r\n", 400),  # which one is the body?
        (b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", 400),  # smuggling
        (b"Transfer-Encoding: gzip, chunked\r\n", 501),  # a coding nginx cannot frame
    ],
)
def test_ambiguous_body_framing_is_refused_in_the_format_of_the_path(
    stack: Stack, framing: bytes, status: int
) -> None:
    with unchanged_database(stack):
        for path in ("/oauth2/token", "/admin/users"):
            answer = raw_exchange(
                stack.proxy_url,
                b"POST "
                + path.encode()
                + b" HTTP/1.1\r\nHost: idp\r\n"
                + framing
                + b"Connection: close\r\n\r\n0\r\n\r\n",
            )
            if path.startswith("/oauth2/"):
                assert_proxy_oauth_error(answer, status, "invalid_request")
            else:
                code = "proxy.bad_request" if status == 400 else "proxy.not_implemented"
                assert_proxy_problem(answer, status, code)
    assert_still_answering(stack)


def test_a_header_line_without_a_colon_is_400(stack: Stack) -> None:
    answer = raw_exchange(
        stack.proxy_url,
        b"GET /oauth2/userinfo HTTP/1.1\r\nHost: idp\r\nthis is no header\r\n"
        b"Connection: close\r\n\r\n",
    )
    assert_proxy_oauth_error(answer, 400, "invalid_request")


def test_the_hosted_pages_still_get_html_from_nginx(proxy: httpx.Client) -> None:
    # The sign-in page and the console are HTML; nginx's refusal may stay HTML there, but
    # it is still the 431, not a 400 of nginx's own numbering.
    answer = proxy.get("/console/", headers={"Cookie": "c=" + "c" * HUGE})
    assert answer.status_code == 431
