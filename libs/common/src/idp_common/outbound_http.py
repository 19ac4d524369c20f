"""Outbound HTTP to addresses administrators register (back-channel logout URIs, client
``jwks_uri``): a transport that resolves each host itself, refuses the connection when
any resolved address is loopback, private, link-local or otherwise not global
(:mod:`idp_common.protocol.rfc6890_special_addresses`), and connects to the very address
it checked. Nothing resolves the name a second time, so a DNS answer that changes between
the check and the connection (DNS rebinding) cannot slip through; TLS still verifies the
certificate against the URI's host name. A refused connection never reaches the network:
the request raises :class:`ForbiddenAddress`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from idp_common.protocol.rfc6890_special_addresses import address_problem

__all__ = ["CheckedBackend", "CheckedTransport", "ForbiddenAddress"]


class ForbiddenAddress(Exception):
    """The target resolved to an address the provider must not reach."""

    def __init__(self, host: str, address: str, kind: str) -> None:
        super().__init__(f"{host} resolves to a {kind} address ({address})")
        self.kind = kind


class CheckedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, resolving and checking each host before connecting."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await _resolve(host, port)
        for address in addresses:
            kind = address_problem(ipaddress.ip_address(address))
            if kind is not None:  # one bad answer is enough: the name is not trusted
                raise ForbiddenAddress(host, address, kind)
        # The checked address itself, never the name again (see the module text).
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:  # try the next address, as a resolver would
                failure = exc
        raise failure or httpcore.ConnectError(f"no address for {host}")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("no Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


async def _resolve(host: str, port: int) -> list[str]:
    """Every address of ``host`` (an IP literal resolves to itself), in resolver order."""
    try:
        found = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except (OSError, UnicodeError) as exc:
        raise httpcore.ConnectError(f"cannot resolve {host}") from exc
    addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses:
        raise httpcore.ConnectError(f"no address for {host}")
    return addresses


class CheckedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport over a connection pool whose connections use ``backend``
    (default: a :class:`CheckedBackend`)."""

    def __init__(
        self, limits: httpx.Limits, backend: httpcore.AsyncNetworkBackend | None = None
    ) -> None:
        super().__init__(limits=limits, trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=backend or CheckedBackend(),
        )
