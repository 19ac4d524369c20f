"""Security and caching headers on every response (contract §1 "Response headers and caching").

Implemented as a ``before_send`` hook rather than a middleware because Litestar runs hooks
for every response, including the 404 and 405 that the router answers before any
middleware. A header a handler already set is left alone, so each header appears once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.types import Message, Scope

from idp_common.config import Settings

API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
# The interactive API description (dev only) loads Swagger UI / Redoc from their CDN.
DOCS_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "img-src 'self' data: https://cdn.jsdelivr.net; font-src https://fonts.gstatic.com; "
    "connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'"
)
HSTS = "max-age=63072000; includeSubDomains"
DOCS_PATHS = ("/docs", "/redoc")

BeforeSend = Callable[[Message, Scope], Awaitable[None]]


def security_headers(settings: Settings) -> BeforeSend:
    """Build the hook that adds CSP, nosniff, Referrer-Policy, HSTS (prod) and no-store."""

    def wanted(csp: str) -> tuple[tuple[bytes, bytes], ...]:
        headers = [
            (b"content-security-policy", csp.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"cache-control", b"no-store"),
        ]
        if settings.is_prod:
            headers.append((b"strict-transport-security", HSTS.encode()))
        return tuple(headers)

    api_headers, docs_headers = wanted(API_CSP), wanted(DOCS_CSP)

    async def add_headers(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start":
            return
        headers = list(message.get("headers", []))
        present = {name.lower() for name, _ in headers}
        path = scope.get("path", "")
        docs = not settings.is_prod and path.startswith(DOCS_PATHS)
        headers.extend(
            (name, value)
            for name, value in (docs_headers if docs else api_headers)
            if name not in present
        )
        message["headers"] = headers

    return add_headers
