"""One back-channel logout POST (OIDC Back-Channel Logout 1.0 §2.5, contract §6 rule 3-4).

The answer's status code is the outcome; 0 means no answer arrived: refused connection,
DNS or TLS failure, or nothing within five seconds. Redirects are not followed (a 3xx is a
failed delivery). Nothing is retried.

Where the POST may go: the URIs are registered by administrators, and the audit log
reports each attempt's status and timing, so a URI naming a port of the provider's own
network would make the dispatcher a port scanner. Unless the deployment allows it
(``SVC_BACKCHANNEL_ALLOW_PRIVATE``), the client's connections go through
:class:`CheckedBackend` (:mod:`idp_common.outbound_http`): it resolves the host itself,
refuses the connection when any resolved address is loopback, private, link-local or
otherwise not global (:mod:`idp_common.protocol.rfc6890_special_addresses`), and connects
to the very address it checked. Nothing resolves the name a second time, so a DNS answer
that changes between the check and the connection (DNS rebinding) cannot slip through.
TLS still verifies the certificate against the URI's host name. A refused attempt never
reaches the network; it is the attempt ``status_code`` 0, ``error`` ``"forbidden_address"``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Final

import httpx
import msgspec

from idp_common.config import load_settings
from idp_common.observability.metrics import count_backchannel_delivery
from idp_common.outbound_http import CheckedBackend, CheckedTransport, ForbiddenAddress
from idp_common.protocol.constants import BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS
from logout_dispatcher.oidc_backchannel_logout import LOGOUT_TOKEN_PARAMETER

log = logging.getLogger("idp.logout")
__all__ = ["Attempt", "CheckedBackend", "ForbiddenAddress", "new_http_client", "post_logout_token"]

USER_AGENT: Final = "idp-logout-dispatcher"
#: Enough for one event reaching many applications at once (the benchmark's 100) and a
#: few events in flight.
MAX_CONNECTIONS: Final = 1024
#: No idle connections are kept. Applications are told rarely, each on its own host, so
#: reuse saves little; and httpcore's pool slows down sharply with many idle connections
#: to one origin (100 POSTs at once: about 90 ms with none kept, 600 ms with 64 kept and
#: 800 ms to 4.5 s with 200, measured on 127.0.0.1 with httpx 0.28).
KEEP_ALIVE: Final = 0


class Attempt(msgspec.Struct, frozen=True, kw_only=True):
    status_code: int  # 0: no answer arrived
    elapsed_ms: int
    error: str | None = None  # why no answer arrived: "timeout", "connect", ...


def new_http_client(*, allow_private: bool | None = None) -> httpx.AsyncClient:
    """The dispatcher's client. ``allow_private``: the deployment's
    ``SVC_BACKCHANNEL_ALLOW_PRIVATE`` (read from the environment when not given)."""
    if allow_private is None:
        allow_private = load_settings().backchannel_allow_private
    limits = httpx.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=KEEP_ALIVE)
    transport = None if allow_private else CheckedTransport(limits)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS),
        limits=limits,
        transport=transport,
        follow_redirects=False,
        trust_env=False,
        headers={"User-Agent": USER_AGENT, "Cache-Control": "no-store"},
    )


def _failure(exc: Exception) -> str:
    """The ``error`` of an attempt that got no answer."""
    if isinstance(exc, ForbiddenAddress):
        return "forbidden_address"
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx.ConnectError):
        return "connect"
    if isinstance(exc, httpx.InvalidURL) or (
        isinstance(exc, ValueError) and not isinstance(exc, httpx.HTTPError)
    ):
        return "invalid_uri"  # e.g. a host IDNA cannot encode
    return type(exc).__name__


async def post_logout_token(http: httpx.AsyncClient, uri: str, token: str) -> Attempt:
    """POST ``logout_token`` to ``uri``; at most five seconds from start to answer."""
    started = time.monotonic()
    status, error = 0, None
    try:
        async with asyncio.timeout(BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS):
            response = await http.post(uri, data={LOGOUT_TOKEN_PARAMETER: token})
        status = response.status_code
    except Exception as exc:  # any failure is an attempt that never arrived, not a crash
        error = _failure(exc)
        if isinstance(exc, ForbiddenAddress):
            log.warning("logout: not sent to %s: %s", uri, exc)
    elapsed = int((time.monotonic() - started) * 1000)
    count_backchannel_delivery(status, error)
    return Attempt(status_code=status, elapsed_ms=elapsed, error=error)
