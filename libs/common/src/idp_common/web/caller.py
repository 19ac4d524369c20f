"""The caller address used by rate limits and audit records (spec §5 "Caller address")."""

from __future__ import annotations

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
    return caller_address(peer, forwarded, resources_of(connection).trusted_networks)
