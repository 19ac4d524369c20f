"""Unit tests of idp_common.protocol.rfc6890_special_addresses (docs/security.md, attack 10)."""

from __future__ import annotations

import ipaddress

import pytest

from idp_common.protocol.rfc6890_special_addresses import (
    address_problem,
    host_problem,
    is_forbidden,
)


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("0.0.0.0", "unspecified"),  # noqa: S104 - a value, not a bind
        ("0.1.2.3", "unspecified"),
        ("10.1.2.3", "private"),
        ("100.64.0.1", "shared (CGNAT)"),
        ("100.127.255.254", "shared (CGNAT)"),
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("169.254.169.254", "link-local"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.0.0.8", "reserved"),
        ("192.0.2.10", "documentation"),
        ("192.88.99.1", "reserved"),
        ("192.168.1.1", "private"),
        ("198.18.0.1", "reserved"),
        ("198.51.100.7", "documentation"),
        ("203.0.113.7", "documentation"),
        ("224.0.0.251", "multicast"),
        ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:169.254.169.254", "link-local"),
        ("::127.0.0.1", "reserved"),  # IPv4-compatible (deprecated)
        ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
        ("64:ff9b:1::1", "private"),
        ("100::1", "reserved"),
        ("2001::1", "reserved"),  # Teredo
        ("2001:db8::1", "documentation"),
        ("2002:7f00:1::1", "loopback"),  # 6to4 of 127.0.0.1
        ("2002:a00:1::1", "private"),  # 6to4 of 10.0.0.1
        ("3fff::1", "documentation"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("fe80::1", "link-local"),
        ("fec0::1", "private"),
        ("ff02::1", "multicast"),
        ("4000::1", "reserved"),  # outside global unicast
    ],
)
def test_non_global_addresses_are_refused(address: str, kind: str) -> None:
    parsed = ipaddress.ip_address(address)
    assert address_problem(parsed) == kind
    assert is_forbidden(parsed)


@pytest.mark.parametrize(
    "address",
    [
        "93.184.215.14",
        "8.8.8.8",
        "100.63.255.255",
        "100.128.0.1",
        "172.15.255.255",
        "172.32.0.1",
        "192.169.0.1",
        "223.255.255.254",
        "2606:2800:220:1::1",
        "2a00:1450:4001:80b::200e",
        "::ffff:93.184.215.14",
        "64:ff9b::5db8:d70e",  # NAT64 of a global IPv4 address
        "2002:5db8:d70e::1",  # 6to4 of a global IPv4 address
    ],
)
def test_global_addresses_pass(address: str) -> None:
    parsed = ipaddress.ip_address(address)
    assert address_problem(parsed) is None
    assert not is_forbidden(parsed)


@pytest.mark.parametrize(
    ("host", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("[::1]", "loopback"),
        ("::1", "loopback"),
        ("[::ffff:10.0.0.1]", "private"),
        ("169.254.169.254", "link-local"),
        ("127.1", "loopback"),  # legacy forms a resolver accepts
        ("2130706433", "loopback"),
        ("0x7f.0.0.1", "loopback"),
        ("0177.0.0.1", "loopback"),
        ("0", "unspecified"),
        ("localhost", "loopback"),
        ("LocalHost.", "loopback"),
        ("api.localhost", "loopback"),
        ("printer.local", "link-local"),
        ("nas.home.arpa", "private"),
        ("db.internal", "private"),
    ],
)
def test_hosts_refused_without_resolving(host: str, kind: str) -> None:
    assert host_problem(host) == kind


@pytest.mark.parametrize(
    "host", ["rp.example.com", "93.184.215.14", "[2606:2800:220:1::1]", "localhost.example", "cafe"]
)
def test_hosts_left_to_resolution(host: str) -> None:
    assert host_problem(host) is None
