"""RFC 6749 §3.3 scope parsing and docs/design.md §2 narrowing."""

from __future__ import annotations

import pytest

from idp_common.protocol.rfc6749_errors import InvalidScope
from idp_common.protocol.rfc6749_scope import format_scope, narrow_scope, parse_scope


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, []),
        ("", []),
        ("openid", ["openid"]),
        ("openid  profile openid", ["openid", "profile"]),
        ("b a", ["b", "a"]),
        ("idp:users:read", ["idp:users:read"]),
    ],
)
def test_parse(raw: str | None, expected: list[str]) -> None:
    assert parse_scope(raw) == expected


@pytest.mark.parametrize("raw", ['a"b', "a\\b", "a\tb", "é", "a" * 5000])
def test_parse_refuses(raw: str) -> None:
    with pytest.raises(InvalidScope):
        parse_scope(raw)


@pytest.mark.parametrize(
    ("requested", "client", "user", "expected"),
    [
        (["openid", "api:x"], {"openid", "api:x"}, {"api:x"}, ["openid", "api:x"]),
        (["openid", "api:x"], {"openid", "api:x"}, set(), ["openid"]),
        (["openid", "api:x"], {"api:x"}, {"api:x"}, ["api:x"]),
        (
            ["offline_access", "email"],
            {"offline_access", "email"},
            set(),
            ["offline_access", "email"],
        ),
        (["api:x", "api:y"], {"api:x", "api:y"}, None, ["api:x", "api:y"]),
        (["api:x", "api:x"], {"api:x"}, None, ["api:x"]),
        ([], {"api:x"}, None, []),
    ],
)
def test_narrow(
    requested: list[str], client: set[str], user: set[str] | None, expected: list[str]
) -> None:
    assert narrow_scope(requested, client, user) == expected


def test_format() -> None:
    assert format_scope(["a", "b", "a"]) == "a b"
