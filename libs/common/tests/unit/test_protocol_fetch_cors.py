"""Unit tests of idp_common.protocol.fetch_cors (browser apps on other origins)."""

from __future__ import annotations

import pytest

from idp_common.protocol.fetch_cors import (
    MAX_ORIGIN_LENGTH,
    default_web_origins,
    effective_web_origins,
    is_loopback_host,
    is_preflight,
    origin_of,
    origin_problem,
    preflight_headers,
    response_headers,
)


@pytest.mark.parametrize(
    "origin",
    [
        "https://app.example",
        "https://app.example:8443",
        "https://xn--bcher-kva.example",
        "https://203.0.113.7",
        "https://[2001:db8::1]:8443",
        "http://localhost:5173",
        "http://127.0.0.1:8080",
        "http://127.1.2.3",
        "http://[::1]:3000",
    ],
)
def test_origins_a_browser_sends_are_accepted(origin: str) -> None:
    assert origin_problem(origin) is None


@pytest.mark.parametrize(
    ("origin", "words"),
    [
        ("", "characters"),
        ("https://" + "a" * MAX_ORIGIN_LENGTH, "characters"),
        ("*", "wildcard"),
        ("null", "wildcard"),
        ("https://*.example", "wildcard"),
        ("https://app.example/", "without path"),
        ("https://app.example/spa", "without path"),
        ("https://app.example?x=1", "without path"),
        ("https://app.example#top", "without path"),
        ("https://app.example:", "without path"),
        ("app.example", "without path"),
        ("https://", "without path"),
        ("https://user@app.example", "user information"),
        ("https://App.example", "lower-case"),
        ("HTTPS://app.example", "lower-case"),
        ("https://bücher.example", "ASCII"),
        ("https://app .example", "ASCII"),
        ("https://app.example:99999", "valid origin"),
        ("https://app.example:443", "default port 443"),
        ("http://localhost:80", "default port 80"),
        ("http://app.example", "https"),
        ("http://10.0.0.1:8080", "https"),
        ("ftp://app.example", "https"),
        ("chrome-extension://abcdef", "https"),
    ],
)
def test_anything_else_is_refused_with_a_reason(origin: str, words: str) -> None:
    problem = origin_problem(origin)
    assert problem is not None
    assert words in problem


@pytest.mark.parametrize(
    ("uri", "origin"),
    [
        ("https://app.example/callback", "https://app.example"),
        ("https://App.Example:443/cb?x=1", "https://app.example"),
        ("https://app.example:8443/cb", "https://app.example:8443"),
        ("http://127.0.0.1:5000/cb", "http://127.0.0.1:5000"),
        ("http://localhost/cb", "http://localhost"),
        ("http://[::1]:3000/cb", "http://[::1]:3000"),
        ("HTTPS://app.example/cb", "https://app.example"),
    ],
)
def test_origin_of_a_redirect_uri_is_what_the_browser_sends(uri: str, origin: str) -> None:
    assert origin_of(uri) == origin
    assert origin_problem(origin) is None


@pytest.mark.parametrize(
    "uri",
    [
        "com.example.app:/callback",  # a native app's private scheme
        "http://app.example/cb",  # plain http to another host: not a secure context
        "https:///nohost",
        "https://app.example:bad/cb",
        "https://bücher.example/cb",
    ],
)
def test_redirect_uris_that_are_no_web_origin_give_none(uri: str) -> None:
    assert origin_of(uri) is None


def test_default_is_the_distinct_origins_of_the_redirect_uris_in_order() -> None:
    uris = [
        "https://b.example/cb",
        "com.example.app:/cb",
        "https://a.example/one",
        "https://b.example/two",
        "http://127.0.0.1:9/cb",
    ]
    assert default_web_origins(uris) == (
        "https://b.example",
        "https://a.example",
        "http://127.0.0.1:9",
    )


def test_a_stored_list_replaces_the_default_entirely() -> None:
    uris = ["https://a.example/cb"]
    assert effective_web_origins([], uris) == ("https://a.example",)
    assert effective_web_origins(["https://b.example"], uris) == ("https://b.example",)
    assert effective_web_origins([], []) == ()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("127.0.0.1", True),
        ("127.9.9.9", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost.example", False),
        ("10.0.0.1", False),
        ("example.com", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_a_preflight_is_options_with_origin_and_a_requested_method() -> None:
    assert is_preflight("OPTIONS", "https://a.example", "POST")
    assert not is_preflight("OPTIONS", None, "POST")
    assert not is_preflight("OPTIONS", "https://a.example", None)
    assert not is_preflight("POST", "https://a.example", "POST")


def test_preflight_and_response_headers_name_the_exact_origin_without_credentials() -> None:
    pre = preflight_headers("https://a.example", ["GET", "POST"])
    assert pre["Access-Control-Allow-Origin"] == "https://a.example"
    assert pre["Access-Control-Allow-Methods"] == "GET, POST"
    assert pre["Access-Control-Allow-Headers"] == "Authorization, Content-Type, DPoP"
    assert pre["Vary"] == "Origin"
    assert int(pre["Access-Control-Max-Age"]) > 0
    actual = response_headers("https://a.example")
    assert actual["Access-Control-Allow-Origin"] == "https://a.example"
    assert "WWW-Authenticate" in actual["Access-Control-Expose-Headers"]
    assert "DPoP-Nonce" in actual["Access-Control-Expose-Headers"]
    for headers in (pre, actual):
        assert "Access-Control-Allow-Credentials" not in headers
