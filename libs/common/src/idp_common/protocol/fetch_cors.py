"""Browser applications on other origins: origins (RFC 6454) and the CORS
protocol of the WHATWG Fetch Standard (§3.2 "CORS protocol"), as pure rules.

An origin is written as a browser sends it in ``Origin`` (RFC 6454 §6.2, Fetch "ASCII
serialization of an origin"): ``scheme://host[:port]``, lower-case scheme and host, the
host in ASCII (IDNA A-labels), no port when it is the scheme's default, no path, query,
fragment or user information. A client's ``allowedWebOrigins`` must be written exactly
so (a browser's ``Origin`` is compared byte for byte); ``*``, ``null`` and wildcards are
refused: these endpoints hand out tokens, so each origin is named.

Which origins count, as for redirect URIs (``admin_service.client_rules``): ``https``, or
plain ``http`` to a loopback host (``localhost``, ``127.0.0.0/8``, ``[::1]``): browsers
treat those as secure contexts, where Web Crypto (PKCE) works.

Default: a client with no ``allowedWebOrigins`` is allowed the origins of its redirect
URIs (:func:`default_web_origins`): a single-page application usually receives its code on
its own origin. Redirect URIs that are not web origins by the rule above (a custom
scheme of a native app, ``http`` to another host) give none.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Final
from urllib.parse import urlsplit

MAX_ORIGIN_LENGTH: Final = 300
MAX_ORIGINS: Final = 50
DEFAULT_PORTS: Final = {"https": 443, "http": 80}
LOOPBACK_NAMES: Final = frozenset({"localhost"})

#: Request headers a browser application may send to the token, userinfo and revocation
#: endpoints: ``Authorization`` (client secret, bearer or DPoP token), ``Content-Type``
#: (the form; also needs no preflight), ``DPoP`` (RFC 9449 §7).
ALLOW_HEADERS: Final = ("Authorization", "Content-Type", "DPoP")
#: Response headers the application may read: the challenge of a 401 (RFC 6750 §3,
#: RFC 9449 §7.1), the DPoP nonce (RFC 9449 §8), how long to wait after a 429 or 503.
EXPOSE_HEADERS: Final = ("WWW-Authenticate", "DPoP-Nonce", "Retry-After")
#: Seconds a browser may reuse a preflight's answer (Chromium keeps at most 7200).
PREFLIGHT_MAX_AGE: Final = 600


def is_loopback_host(host: str) -> bool:
    """``localhost`` or a loopback address (brackets of an IPv6 literal removed)."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _web_scheme_allowed(scheme: str, host: str) -> bool:
    return scheme == "https" or (scheme == "http" and is_loopback_host(host))


def origin_problem(value: str) -> str | None:
    """Why ``value`` cannot be an allowed web origin (see the module text), or None."""
    if not value or len(value) > MAX_ORIGIN_LENGTH:
        return f"1 to {MAX_ORIGIN_LENGTH} characters"
    if value in ("*", "null") or "*" in value:
        return "must name one origin: no wildcard, not null"
    if not value.isascii() or any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return "must be ASCII (IDNA A-labels) without spaces or control characters"
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return "not a valid origin (scheme://host[:port])"
    host = parts.hostname or ""
    problem = None
    if value != value.lower():
        problem = "must be lower-case, as a browser sends it"
    elif parts.username is not None or parts.password is not None:
        problem = "must not contain user information"
    elif (
        not parts.scheme
        or not host
        or parts.netloc.endswith(":")
        or f"{parts.scheme}://{parts.netloc}" != value
    ):
        problem = "must be scheme://host[:port], without path, query or fragment"
    elif not _web_scheme_allowed(parts.scheme, host):
        problem = "must use https (plain http only to 127.0.0.1, [::1] or localhost)"
    elif port is not None and port == DEFAULT_PORTS.get(parts.scheme):
        problem = f"leave out the default port {port}, as a browser does"
    return problem


def origin_of(uri: str) -> str | None:
    """The web origin of an absolute ``uri`` as a browser serializes it, or None when it
    has none by the module's rule (another scheme, ``http`` to another host, malformed)."""
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if not host or not host.isascii() or not _web_scheme_allowed(scheme, host):
        return None
    if ":" in host:  # an IPv6 literal: urlsplit removed its brackets
        host = f"[{host}]"
    origin = f"{scheme}://{host}"
    if port is not None and port != DEFAULT_PORTS[scheme]:
        origin += f":{port}"
    return origin


def default_web_origins(redirect_uris: Iterable[str]) -> tuple[str, ...]:
    """The distinct web origins of ``redirect_uris``, in their order."""
    found: dict[str, None] = {}
    for uri in redirect_uris:
        origin = origin_of(uri)
        if origin is not None:
            found[origin] = None
    return tuple(found)


def effective_web_origins(allowed: Sequence[str], redirect_uris: Iterable[str]) -> tuple[str, ...]:
    """What applies to a client: its ``allowedWebOrigins``, else its redirect URIs' origins."""
    return tuple(allowed) if allowed else default_web_origins(redirect_uris)


def is_preflight(method: str, origin: str | None, request_method: str | None) -> bool:
    """A CORS-preflight request (Fetch §3.2.2): ``OPTIONS`` with ``Origin`` and
    ``Access-Control-Request-Method``."""
    return method == "OPTIONS" and origin is not None and request_method is not None


def preflight_headers(origin: str, methods: Sequence[str]) -> dict[str, str]:
    """The answer to an allowed preflight (Fetch §3.2.3): the exact origin, never
    credentials (no ``Access-Control-Allow-Credentials``: no cookies on these calls)."""
    return {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": ", ".join(methods),
        "Access-Control-Allow-Headers": ", ".join(ALLOW_HEADERS),
        "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE),
        "Vary": "Origin",
    }


def response_headers(origin: str) -> dict[str, str]:
    """The CORS headers of an allowed actual response (Fetch §3.2.3)."""
    return {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Expose-Headers": ", ".join(EXPOSE_HEADERS),
    }


#: Discovery and the JWKS: public documents any origin may read.
PUBLIC_HEADERS: Final = {"Access-Control-Allow-Origin": "*"}
