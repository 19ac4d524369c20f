"""The caller's address (contract §5 "Caller address", setting ``SVC_FORWARDED_ALLOW_IPS``).

The per-address rate limits and the ``ip`` of every audit record use this address.

- ``X-Forwarded-For`` is believed only when the connecting peer is inside a trusted
  network (``SVC_FORWARDED_ALLOW_IPS``; empty by default, so nobody is trusted).
- A trusted proxy must send exactly one address, not a chain. A chain (``a, b``), an
  empty value or anything that is not an IP address is not believed: the peer is used.
  Whoever sent the first hop of a chain is unknown to us, so believing any part of it
  would let a client choose its own rate-limit bucket.
- ``*`` (trust everybody) is refused, as are ``0.0.0.0/0`` and ``::/0``, which mean the same.
- IPv4-mapped IPv6 addresses (``::ffff:192.0.2.1``, seen on dual-stack sockets) are
  normalised to IPv4, so IPv4 networks match them and one caller has one bucket.

When several ``X-Forwarded-For`` header lines arrive, the caller joins them with ``,``
before calling :func:`caller_address`; the result is a chain and is not believed.

Per-address limits count an IPv6 caller by its /64 (:func:`rate_limit_address`): one
subscriber line or host is routinely given a whole /64 (RFC 6177, RFC 8273), so counting
each of its 2^64 addresses apart gives one caller as many buckets as it likes. Audit
records keep the full address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from functools import lru_cache
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

__all__ = [
    "UNKNOWN_ADDRESS",
    "Network",
    "caller_address",
    "parse_trusted_networks",
    "rate_limit_address",
]

Network = IPv4Network | IPv6Network
#: The prefix length an IPv6 caller is counted by (one subscriber's or one host's share).
IPV6_LIMIT_PREFIX = 64
#: IPv6 ranges whose low bits carry a whole IPv4 address (RFC 6052 NAT64, RFC 4380
#: Teredo): a /64 of them is many unrelated IPv4 callers, so they stay one address each.
_EMBEDDED_IPV4 = (IPv6Network("64:ff9b::/96"), IPv6Network("2001::/32"))
#: Returned when there is no usable peer address (no socket peer, a Unix socket, a test client).
UNKNOWN_ADDRESS = "unknown"


def parse_trusted_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """Parse ``SVC_FORWARDED_ALLOW_IPS`` entries: addresses (``10.0.0.5``) or networks
    (``10.0.0.0/8``, ``fd00::/8``). Blank entries are skipped.

    Raises ValueError naming the bad entry; ``*`` and networks covering every address are
    refused. A network with host bits set (``10.0.0.1/8``) is refused, because it is
    probably a typo.
    """
    networks: list[Network] = []
    for raw in values:
        entry = raw.strip()
        if not entry:
            continue
        if entry == "*":
            raise ValueError(
                "'*' is not allowed in the trusted proxy list (SVC_FORWARDED_ALLOW_IPS): "
                "it would let any caller choose its own address; list the proxy's "
                "addresses or networks instead"
            )
        try:
            network = ipaddress.ip_network(entry, strict=True)
        except ValueError as exc:
            raise ValueError(
                f"{entry!r} in the trusted proxy list (SVC_FORWARDED_ALLOW_IPS) is not an "
                f"IP address or network: {exc}"
            ) from exc
        if network.prefixlen == 0:
            raise ValueError(
                f"{entry!r} in the trusted proxy list (SVC_FORWARDED_ALLOW_IPS) trusts every "
                "address, which is the same as '*'; list the proxy's networks instead"
            )
        networks.append(_normalise_network(network))
    return tuple(networks)


def _normalise_network(network: Network) -> Network:
    if isinstance(network, IPv6Network) and network.prefixlen >= 96:
        mapped = network.network_address.ipv4_mapped
        if mapped is not None:
            return IPv4Network((mapped, network.prefixlen - 96))
    return network


def _parse_address(value: str) -> IPv4Address | IPv6Address | None:
    try:
        address = ipaddress.ip_address(value.strip())
    except ValueError:
        return None
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _forwarded_address(forwarded_for: str | None) -> IPv4Address | IPv6Address | None:
    """The single address of an ``X-Forwarded-For`` value, or None for a chain or garbage."""
    if forwarded_for is None or "," in forwarded_for:
        return None
    return _parse_address(forwarded_for)


def caller_address(peer: str | None, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The address to rate-limit and audit: see the module docstring.

    ``peer`` is the connecting socket's address; ``forwarded_for`` the raw
    ``X-Forwarded-For`` value (None when absent); ``trusted`` the result of
    :func:`parse_trusted_networks`. Returns an address in canonical text form, or
    ``"unknown"`` when ``peer`` is None or not an IP address.
    """
    if peer is None:
        return UNKNOWN_ADDRESS
    peer_address = _parse_address(peer)
    if peer_address is None:
        return UNKNOWN_ADDRESS
    if trusted and any(peer_address in network for network in trusted):
        forwarded = _forwarded_address(forwarded_for)
        if forwarded is not None:
            return str(forwarded)
    return str(peer_address)


@lru_cache(maxsize=4096)
def rate_limit_address(key: str) -> str:
    """What a per-address limit counts for ``key``: an IPv6 address stands for its /64
    (``2001:db8:1:2::/64``); IPv4, an IPv4-mapped IPv6 address (as its IPv4 address),
    NAT64 and Teredo addresses stay one address each. A key that is not an IP address (an
    account id, ``unknown``) is returned unchanged."""
    if ":" not in key:  # IPv4 or not an address: the common case, no parsing
        return key
    try:
        address = ipaddress.ip_address(key)
    except ValueError:
        return key
    if not isinstance(address, IPv6Address):
        return key
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    if any(address in network for network in _EMBEDDED_IPV4):
        return str(address)
    return str(IPv6Network((address, IPV6_LIMIT_PREFIX), strict=False))
