"""The one email-address rule (idp_common.protocol.email_address)."""

from __future__ import annotations

import pytest

from idp_common.protocol.email_address import email_problem


@pytest.mark.parametrize(
    "address",
    ["ada@example.com", "a.b+tag@sub.example.org", "x@xn--bcher-kva.example", "o'neil@ex.co"],
)
def test_accepted(address: str) -> None:
    assert email_problem(address) is None


@pytest.mark.parametrize(
    "address",
    [
        "",
        "ada",
        "ada@",
        "@example.com",
        "ada@example",
        "ada@example..com",
        "ada@-example.com",
        "a..b@example.com",
        ".ada@example.com",
        "ada smith@example.com",
        '"ada"@example.com',
        "ada@[127.0.0.1]",
        "ada\x00@example.com",
        "a" * 65 + "@example.com",
        "ada@" + "a" * 250 + ".com",
    ],
)
def test_refused(address: str) -> None:
    assert email_problem(address) is not None
