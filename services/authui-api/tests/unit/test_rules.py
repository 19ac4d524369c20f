"""Unit tests of authui_service.rules (consent decision, redirects, cookie, origins)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from authui_service.rules import (
    challenge_kind,
    error_redirect,
    face_alone_allowed,
    needs_consent,
    origin_of,
    resume_url,
    session_cookie,
)


@pytest.mark.parametrize(
    ("skip", "requested", "consented", "prompt", "expected"),
    [
        (False, ["openid", "email"], [], [], True),
        (False, ["openid", "email"], ["openid", "email", "profile"], [], False),
        (False, ["openid", "email"], ["openid"], [], True),
        (True, ["openid", "email"], [], [], False),
        (True, ["openid"], ["openid"], ["consent"], True),
        (False, ["openid"], ["openid"], ["login", "consent"], True),
    ],
)
def test_needs_consent(
    skip: bool, requested: list[str], consented: list[str], prompt: list[str], expected: bool
) -> None:
    assert (
        needs_consent(skip_consent=skip, requested=requested, consented=consented, prompt=prompt)
        is expected
    )


def test_challenge_kind() -> None:
    assert challenge_kind("consent") == "consent"
    assert [challenge_kind(s) for s in ("password", "totp", "done")] == ["login"] * 3


def test_resume_url() -> None:
    assert (
        resume_url("https://id.example.com/", "abc_-1")
        == "https://id.example.com/oauth2/authorize?challenge=abc_-1"
    )


def test_error_redirect_keeps_the_query_and_encodes() -> None:
    url = error_redirect(
        "https://rp.example.com/cb?x=1&y=a%20b",
        error="access_denied",
        state="s t&=",
        issuer="https://id.example.com",
    )
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "rp.example.com", "/cb")
    assert parse_qsl(parts.query) == [
        ("x", "1"),
        ("y", "a b"),
        ("error", "access_denied"),
        ("state", "s t&="),
        ("iss", "https://id.example.com"),
    ]


def test_error_redirect_without_state() -> None:
    url = error_redirect("http://127.0.0.1:9/cb", error="access_denied", state=None, issuer="i")
    assert url == "http://127.0.0.1:9/cb?error=access_denied&iss=i"


def test_session_cookie() -> None:
    assert session_cookie("v", secure=False) == "svc_session=v; Path=/; HttpOnly; SameSite=Lax"
    assert session_cookie("v", secure=True).endswith("; SameSite=Lax; Secure")


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("http://localhost:8080", "http://localhost:8080"),
        ("HTTPS://ID.Example.com:443/path?q", "https://id.example.com"),
        ("http://127.0.0.1:80", "http://127.0.0.1"),
        ("http://[::1]:8080", "http://[::1]:8080"),
        ("null", None),
        ("ftp://x", None),
        ("http://[::1", None),
    ],
)
def test_origin_of(url: str, origin: str | None) -> None:
    assert origin_of(url) == origin


def test_a_face_alone_needs_the_mode_and_an_acr_request_that_admits_it() -> None:
    assert face_alone_allowed("first_factor", [])
    assert face_alone_allowed("first_factor", ["urn:idp:acr:face", "urn:idp:acr:1fa"])
    assert not face_alone_allowed("first_factor", ["urn:idp:acr:1fa", "urn:idp:acr:2fa"])
    assert not face_alone_allowed("second_factor", [])
    assert not face_alone_allowed("off", [])


def test_the_cookie_takes_the_deployment_s_name() -> None:
    assert session_cookie("v", secure=True, name="__Host-svc_session") == (
        "__Host-svc_session=v; Path=/; HttpOnly; SameSite=Lax; Secure"
    )
