"""Properties of the caller-address rule (contract §5, ``caller_address``): the
``X-Forwarded-For`` value is believed only from a trusted peer and only when it is one
address; otherwise the peer is the caller. Whatever the header holds, the answer is an
address in canonical form or ``unknown``, never an exception."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from idp_common.protocol.caller_address import (
    UNKNOWN_ADDRESS,
    caller_address,
    parse_trusted_networks,
    rate_limit_address,
)
from libs.common.tests.unit.properties.support import FAST

ADDRESSES = st.ip_addresses().map(str)
TRUSTED = parse_trusted_networks(["10.0.0.0/8", "fd00::/8"])
TRUSTED_PEERS = st.ip_addresses(network="10.0.0.0/8").map(str) | st.ip_addresses(
    network="fd00::/8"
).map(str)
HEADER = (
    st.none()
    | ADDRESSES
    | st.text(max_size=40)
    | st.lists(ADDRESSES, min_size=2, max_size=3).map(", ".join)
)


def _canonical(text: str) -> str:
    address = ipaddress.ip_address(text.strip())
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def _maybe_canonical(text: str | None) -> str | None:
    try:
        return _canonical(text or "")
    except ValueError:
        return None


@FAST
@given(ADDRESSES, HEADER)
def test_an_untrusted_peer_is_the_caller_whatever_it_forwards(
    peer: str, header: str | None
) -> None:
    if any(ipaddress.ip_address(_canonical(peer)) in network for network in TRUSTED):
        return
    assert caller_address(peer, header, TRUSTED) == _canonical(peer)
    assert caller_address(peer, header, ()) == _canonical(peer)


@FAST
@given(TRUSTED_PEERS, ADDRESSES)
def test_a_trusted_peer_forwarding_one_address_names_the_caller(peer: str, forwarded: str) -> None:
    assert caller_address(peer, forwarded, TRUSTED) == _canonical(forwarded)
    assert caller_address(peer, f"  {forwarded} ", TRUSTED) == _canonical(forwarded)


@FAST
@given(TRUSTED_PEERS, st.lists(ADDRESSES, min_size=2, max_size=4))
def test_a_chain_is_never_believed(peer: str, chain: list[str]) -> None:
    assert caller_address(peer, ", ".join(chain), TRUSTED) == _canonical(peer)
    assert caller_address(peer, ",".join(chain), TRUSTED) == _canonical(peer)


@FAST
@given(st.none() | st.text(max_size=40) | ADDRESSES, HEADER)
def test_any_input_gives_an_address_or_unknown(peer: str | None, header: str | None) -> None:
    answer = caller_address(peer, header, TRUSTED)
    if answer != UNKNOWN_ADDRESS:
        assert str(ipaddress.ip_address(answer)) == answer
        assert answer in {_maybe_canonical(peer), _maybe_canonical(header)}


@FAST
@given(ADDRESSES | st.text(max_size=40))
def test_a_rate_limit_key_is_the_address_its_slash_64_or_unchanged(key: str) -> None:
    counted = rate_limit_address(key)
    try:
        address = ipaddress.ip_address(key)
    except ValueError:
        assert counted == key
        return
    if isinstance(address, ipaddress.IPv4Address):
        assert counted == key
    elif address.ipv4_mapped is not None:
        assert counted == str(address.ipv4_mapped)
    elif "/" in counted:
        assert address in ipaddress.IPv6Network(counted) and counted.endswith("/64")
    else:
        assert counted == str(address)
