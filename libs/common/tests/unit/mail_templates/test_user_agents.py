"""A browser in a few words (``mail_templates.user_agents``): known names only, so the
caller's ``User-Agent`` never reaches a security notice as it was sent."""

from __future__ import annotations

import pytest

from idp_common.mail_templates.user_agents import MAX_USER_AGENT_CHARS, describe_user_agent
from idp_common.protocol.rfc4647_locales import SUPPORTED_LOCALES
from libs.common.tests.unit.mail_templates.support import FIREFOX, rendered


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (FIREFOX, ("Firefox 128", "Windows")),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko)"
            " Version/17.5 Safari/605.1.15",
            ("Safari 17", "macOS"),
        ),
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/126.0.0.0 Mobile Safari/537.36",
            ("Chrome 126", "Android"),
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.87",
            ("Edge 126", "Windows"),
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
            "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
            ("Safari 17", "iOS"),
        ),
        ("curl/8.5.0", (None, None)),
        ("", (None, None)),
        (None, (None, None)),
    ],
)
def test_a_browser_in_a_few_words(header: str | None, expected: tuple[str | None, ...]) -> None:
    assert describe_user_agent(header) == expected


def test_the_callers_header_never_reaches_the_mail() -> None:
    lure = "Visit https://evil.example/undo to cancel this change"
    for header in (lure, f"Firefox/99 {lure}", "<script>alert(1)</script>"):
        for locale in SUPPORTED_LOCALES:
            mail = rendered(locale, user_agent=header)
            assert "evil.example" not in mail.text + mail.html
            assert "script" not in mail.text + mail.html


def test_a_huge_header_is_cut_before_it_is_read() -> None:
    assert describe_user_agent("x" * 10_000_000 + " Firefox/128") == (None, None)
    assert describe_user_agent("x" * (MAX_USER_AGENT_CHARS - 20) + " Firefox/128") == (
        "Firefox 128",
        None,
    )
