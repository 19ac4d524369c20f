"""Unit tests of idp_common.protocol.caller_address (contract §5 "Caller address")."""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network

import pytest

from idp_common.protocol.caller_address import (
    caller_address,
    parse_trusted_networks,
    rate_limit_address,
)

TRUSTED = parse_trusted_networks(["10.0.0.0/8", "192.0.2.7", "fd00::/8"])


# --- parse_trusted_networks ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        pytest.param([], (), id="empty"),
        pytest.param(["", "  "], (), id="blank-entries-skipped"),
        pytest.param(["127.0.0.1"], (IPv4Network("127.0.0.1/32"),), id="address"),
        pytest.param([" 10.0.0.0/8 "], (IPv4Network("10.0.0.0/8"),), id="network-spaces"),
        pytest.param(["::1"], (IPv6Network("::1/128"),), id="ipv6-address"),
        pytest.param(["fd00::/8"], (IPv6Network("fd00::/8"),), id="ipv6-network"),
        pytest.param(
            ["::ffff:10.1.0.0/112"], (IPv4Network("10.1.0.0/16"),), id="ipv4-mapped-network"
        ),
        pytest.param(
            ["10.0.0.1", "10.0.0.2"],
            (IPv4Network("10.0.0.1/32"), IPv4Network("10.0.0.2/32")),
            id="several",
        ),
    ],
)
def test_parse(values: list[str], expected: tuple[object, ...]) -> None:
    assert parse_trusted_networks(values) == expected


@pytest.mark.parametrize(
    ("values", "message"),
    [
        pytest.param(["*"], "'\\*' is not allowed", id="star"),
        pytest.param(["10.0.0.1", " * "], "'\\*' is not allowed", id="star-among-others"),
        pytest.param(["0.0.0.0/0"], "'0.0.0.0/0' .* trusts every address", id="all-ipv4"),
        pytest.param(["::/0"], "'::/0' .* trusts every address", id="all-ipv6"),
        pytest.param(["proxy.local"], "'proxy.local' .* not an IP address", id="hostname"),
        pytest.param(["10.0.0.1/8"], "'10.0.0.1/8' .* not an IP address", id="host-bits"),
        pytest.param(["10.0.0.0/33"], "'10.0.0.0/33'", id="bad-prefix"),
        pytest.param(["127.0.0.1", "nope"], "'nope'", id="names-the-bad-entry"),
    ],
)
def test_parse_refuses(values: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_trusted_networks(values)


# --- caller_address ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "trusted", "expected"),
    [
        # nobody trusted (the default): the header is ignored
        pytest.param("203.0.113.9", None, (), "203.0.113.9", id="untrusted-no-header"),
        pytest.param("203.0.113.9", "198.51.100.1", (), "203.0.113.9", id="default-ignores-xff"),
        pytest.param("10.0.0.5", "198.51.100.1", (), "10.0.0.5", id="proxy-not-listed"),
        # peer outside the trusted networks: a client cannot choose its address
        pytest.param("203.0.113.9", "198.51.100.1", TRUSTED, "203.0.113.9", id="spoof-refused"),
        # trusted proxy sending one address: believed
        pytest.param("10.0.0.5", "198.51.100.1", TRUSTED, "198.51.100.1", id="trusted-network"),
        pytest.param("192.0.2.7", "198.51.100.1", TRUSTED, "198.51.100.1", id="trusted-address"),
        pytest.param("10.0.0.5", " 198.51.100.1 ", TRUSTED, "198.51.100.1", id="spaces"),
        pytest.param("10.0.0.5", "2001:db8::1", TRUSTED, "2001:db8::1", id="xff-ipv6"),
        pytest.param("10.0.0.5", "2001:DB8:0::1", TRUSTED, "2001:db8::1", id="xff-canonical"),
        pytest.param("fd00::5", "198.51.100.1", TRUSTED, "198.51.100.1", id="ipv6-proxy"),
        pytest.param("10.0.0.5", "::ffff:198.51.100.1", TRUSTED, "198.51.100.1", id="xff-mapped"),
        # trusted proxy, but the header is not exactly one address: the peer
        pytest.param("10.0.0.5", None, TRUSTED, "10.0.0.5", id="no-header"),
        pytest.param("10.0.0.5", "", TRUSTED, "10.0.0.5", id="empty-header"),
        pytest.param("10.0.0.5", "1.2.3.4, 5.6.7.8", TRUSTED, "10.0.0.5", id="chain"),
        pytest.param("10.0.0.5", "1.2.3.4,", TRUSTED, "10.0.0.5", id="trailing-comma"),
        pytest.param("10.0.0.5", "garbage", TRUSTED, "10.0.0.5", id="garbage"),
        pytest.param("10.0.0.5", "1.2.3.4:5678", TRUSTED, "10.0.0.5", id="with-port"),
        pytest.param("10.0.0.5", "[2001:db8::1]", TRUSTED, "10.0.0.5", id="bracketed"),
        pytest.param("10.0.0.5", "unknown", TRUSTED, "10.0.0.5", id="word-unknown"),
        pytest.param("10.0.0.5", "1.2.3.4 5.6.7.8", TRUSTED, "10.0.0.5", id="space-separated"),
        # IPv4-mapped IPv6 peers are normalised and match IPv4 networks
        pytest.param("::ffff:203.0.113.9", None, (), "203.0.113.9", id="mapped-peer"),
        pytest.param("::ffff:10.0.0.5", "198.51.100.1", TRUSTED, "198.51.100.1", id="mapped-proxy"),
        pytest.param("2001:DB8::0:1", None, (), "2001:db8::1", id="peer-canonical"),
        # no usable peer
        pytest.param(None, None, (), "unknown", id="no-peer"),
        pytest.param(None, "198.51.100.1", TRUSTED, "unknown", id="no-peer-with-header"),
        pytest.param("testclient", "198.51.100.1", TRUSTED, "unknown", id="peer-not-an-ip"),
    ],
)
def test_caller_address(
    peer: str | None,
    forwarded_for: str | None,
    trusted: tuple[IPv4Network | IPv6Network, ...],
    expected: str,
) -> None:
    assert caller_address(peer, forwarded_for, trusted) == expected


# --- rate_limit_address --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        pytest.param("2001:db8:1:2::7", "2001:db8:1:2::/64", id="ipv6-by-64"),
        pytest.param("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64", id="ipv6-top"),
        pytest.param("2001:DB8:1:3::1", "2001:db8:1:3::/64", id="ipv6-next-64"),
        pytest.param("::1", "::/64", id="ipv6-loopback"),
        pytest.param("fe80::1", "fe80::/64", id="ipv6-link-local"),
        pytest.param("203.0.113.9", "203.0.113.9", id="ipv4-per-address"),
        pytest.param("::ffff:203.0.113.9", "203.0.113.9", id="mapped-as-ipv4"),
        pytest.param("64:ff9b::cb00:7109", "64:ff9b::cb00:7109", id="nat64-per-address"),
        pytest.param(
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            id="teredo-per-address",
        ),
        pytest.param("unknown", "unknown", id="word"),
        pytest.param(
            "6f1c1d56-1b7e-4a57-9d7e-0f4a6c2b1e11",
            "6f1c1d56-1b7e-4a57-9d7e-0f4a6c2b1e11",
            id="account-id",
        ),
        pytest.param("a:b:c", "a:b:c", id="colons-not-an-address"),
    ],
)
def test_rate_limit_address(key: str, expected: str) -> None:
    assert rate_limit_address(key) == expected
