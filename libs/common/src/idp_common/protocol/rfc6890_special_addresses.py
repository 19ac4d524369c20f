"""Addresses a server-side request must not reach: the IANA special-purpose address
registries (RFC 6890, updated by RFC 8190) and the other ranges that are not global
unicast.

The logout dispatcher POSTs to URIs that administrators register
(``backchannelLogoutUri``), and the audit log reports each attempt's status and timing. A
URI naming ``127.0.0.1:6379`` or ``10.0.0.5:5432`` would turn it into a port scanner of the
provider's own network (server-side request forgery). Unless an operator allows them
(``SVC_BACKCHANNEL_ALLOW_PRIVATE``, for development and the test suite), such targets are
refused when the client is registered (:func:`host_problem`, from the URI alone) and again
when the dispatcher has resolved the host name, just before it connects
(:func:`address_problem`, on each resolved address).

Refused: unspecified, loopback, private (RFC 1918), shared CGNAT space (RFC 6598),
link-local (RFC 3927, RFC 4291, which covers ``169.254.169.254``, the cloud metadata
service), unique-local ``fc00::/7`` (RFC 4193), deprecated site-local, multicast,
documentation and benchmarking ranges, the IETF protocol-assignment blocks, reserved
``240.0.0.0/4`` and broadcast, and every IPv6 address outside global unicast ``2000::/3``.
An address that embeds an IPv4 address (IPv4-mapped ``::ffff:0:0/96``, NAT64
``64:ff9b::/96``, 6to4 ``2002::/16``) is judged by that IPv4 address.

Pure: no resolution happens here; the caller resolves and passes each address.
"""

from __future__ import annotations

import ipaddress
import socket
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from typing import Final

__all__ = ["address_problem", "host_problem", "is_forbidden"]

Address = IPv4Address | IPv6Address

_V4: Final[tuple[tuple[IPv4Network, str], ...]] = tuple(
    (IPv4Network(network), kind)
    for network, kind in (
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared (CGNAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "reserved"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "reserved"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "reserved"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
    )
)

_V6: Final[tuple[tuple[IPv6Network, str], ...]] = tuple(
    (IPv6Network(network), kind)
    for network, kind in (
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("64:ff9b:1::/48", "private"),
        ("100::/64", "reserved"),
        ("2001::/23", "reserved"),
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "reserved"),
        ("fc00::/7", "private"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "private"),
        ("ff00::/8", "multicast"),
    )
)
_GLOBAL_UNICAST: Final = IPv6Network("2000::/3")
_NAT64: Final = IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR: Final = IPv6Network("2002::/16")

#: Names that never leave the machine or the local network (RFC 6761 ``localhost``,
#: RFC 6762 ``.local``, RFC 8375 ``home.arpa``, ICANN's private-use ``.internal``).
_LOCAL_NAMES: Final = (
    ("localhost", "loopback"),
    ("local", "link-local"),
    ("home.arpa", "private"),
    ("internal", "private"),
)


def _embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _SIX_TO_FOUR:
        return address.sixtofour
    return None


def address_problem(address: Address) -> str | None:
    """What kind of non-global address ``address`` is (``"loopback"``, ``"private"``,
    ``"link-local"``, ...), or None for a global unicast address that may be reached."""
    if isinstance(address, IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return address_problem(embedded)
        for network6, kind in _V6:
            if address in network6:
                return kind
        return None if address in _GLOBAL_UNICAST else "reserved"
    for network4, kind in _V4:
        if address in network4:
            return kind
    return None


def is_forbidden(address: Address) -> bool:
    return address_problem(address) is not None


def _literal(host: str) -> Address | None:
    """``host`` as an IP address: standard forms, and the legacy IPv4 forms a resolver
    also accepts (``127.1``, ``0x7f.0.0.1``, ``2130706433``)."""
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
    except ValueError:
        pass
    if host and all(c in "0123456789abcdefxABCDEFX." for c in host):
        try:
            return IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def host_problem(host: str) -> str | None:
    """Why the host of a URI cannot be a server-side target, judged without resolving it:
    an IP literal that is not global, or a name that is local by definition. None when
    only resolution can tell (the dispatcher checks again then)."""
    name = host.strip().rstrip(".").lower()
    literal = _literal(name)
    if literal is not None:
        return address_problem(literal)
    for suffix, kind in _LOCAL_NAMES:
        if name == suffix or name.endswith("." + suffix):
            return kind
    return None
