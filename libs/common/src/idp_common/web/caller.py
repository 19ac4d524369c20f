"""The caller address used by rate limits and audit records (contract §5 "Caller address")."""

from __future__ import annotations

from functools import lru_cache
from ipaddress import IPv4Network, IPv6Network
from typing import Any

from litestar.connection import ASGIConnection

from idp_common.protocol.caller_address import caller_address
from idp_common.web.resources import Resources


def resources_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Resources:
    resources: Resources = connection.app.state.resources
    return resources


def caller_ip(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """``X-Forwarded-For`` when the sender is trusted and sent one address, else the peer.

    Several header lines count as a chain and are not believed.
    """
    peer = connection.client.host if connection.client else None
    lines = connection.headers.getall("x-forwarded-for", [])
    forwarded = ", ".join(lines) if lines else None
    return _caller_address(peer, forwarded, resources_of(connection).trusted_networks)


@lru_cache(maxsize=4096)
def _caller_address(
    peer: str | None, forwarded: str | None, trusted: tuple[IPv4Network | IPv6Network, ...]
) -> str:
    """``caller_address`` is pure and parses addresses and networks; a worker sees the same
    few (peer, header) pairs again and again, so it keeps the answers."""
    return caller_address(peer, forwarded, trusted)
