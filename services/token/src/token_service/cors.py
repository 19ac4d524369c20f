"""CORS for browser applications on other origins (docs/oauth/browser-apps.md).

The rules are pure (:mod:`idp_common.protocol.fetch_cors`); this module carries them on
the token service's ASGI handler, outside Litestar's router, so every answer of these
paths gets them, errors included:

- ``/oauth2/token``, ``/oauth2/revoke``, ``/oauth2/userinfo``: ``Access-Control-Allow-Origin``
  is the request's exact ``Origin`` (with ``Vary: Origin``), and only when that origin is
  allowed for the client the request is for. The endpoint names the client as soon as it
  knows it (:func:`note_client`): the ``client_id`` of the form or of Basic, the
  authenticated client, or the access token's ``client_id`` at userinfo. An answer given
  before any client was known (a per-address 429, a 503, an unknown client, an invalid
  access token) is readable by an origin some client allows: it says nothing about any
  client.
- A preflight (``OPTIONS``) is sent without the body, so it cannot name the client: it is
  answered for an origin allowed for ANY client (the set is kept per worker, reloaded when
  an administrator changed a client, :data:`INDEX_SECONDS` at most), and the actual
  answer is then held to the client's own origins. A refused preflight is 403 without
  CORS headers. No credentials: ``Access-Control-Allow-Credentials`` is never sent, so a
  browser sends no cookies with these calls.
- Discovery and the JWKS: ``Access-Control-Allow-Origin: *`` on every answer (public
  documents; the same bytes for every caller, so the proxy's cache may keep them).
- The deployment's ``SVC_ALLOWED_ADMIN_ORIGINS`` (Litestar's CORS configuration, made by
  ``create_service_app``) still applies: such an origin passes the preflight, and an
  answer Litestar already marked for it is left as it is.
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import Any, Final, cast

from litestar import Litestar
from litestar.connection import ASGIConnection
from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPScope, Message, Receive, Scope, Send

from idp_common.protocol.fetch_cors import (
    PUBLIC_HEADERS,
    is_preflight,
    preflight_headers,
    response_headers,
)
from idp_common.state.change_stamp import CLIENTS, StampWatch
from idp_common.state.redis_batch import RedisBatch
from idp_common.storage.repos.clients import all_web_origins
from idp_common.web.dependency_errors import RETRY_AFTER_SECONDS, is_dependency_failure
from idp_common.web.resources import Resources
from token_service.caches import TTLCache
from token_service.context import token_context
from token_service.protocol.rfc8414_metadata import (
    JWKS_PATH,
    OAUTH_METADATA_PATH,
    OPENID_CONFIGURATION_PATH,
    REVOCATION_PATH,
    TOKEN_PATH,
    USERINFO_PATH,
)

log = logging.getLogger("idp.cors")

#: Paths answered for the client's own origins, and the methods a preflight allows.
CLIENT_PATHS: Final = {
    TOKEN_PATH: ("POST",),
    REVOCATION_PATH: ("POST",),
    USERINFO_PATH: ("GET", "POST"),
}
PUBLIC_PATHS: Final = frozenset({OPENID_CONFIGURATION_PATH, OAUTH_METADATA_PATH, JWKS_PATH})
#: Seconds a worker keeps the set of origins some client allows (a change made through
#: the admin API reaches it at once, by the change stamp).
INDEX_SECONDS: Final = 30.0
#: The ASGI scope key an endpoint names its request's client in.
CLIENT_KEY: Final = "idp.cors_client_id"
_NO_CLIENT: Final = ""
_STATE_KEY: Final = "cors_origin_index"
_CORS_HEADERS: Final = frozenset(
    {
        b"access-control-allow-origin",
        b"access-control-allow-credentials",
        b"access-control-expose-headers",
    }
)


def note_client(connection: ASGIConnection[Any, Any, Any, Any], client_id: object) -> None:
    """The request is for this client: its origins decide the answer's CORS headers."""
    if isinstance(client_id, str) and client_id:
        cast(MutableMapping[str, Any], connection.scope)[CLIENT_KEY] = client_id


class OriginIndex:
    """Every origin some client allows, loaded once per :data:`INDEX_SECONDS` or change."""

    def __init__(self, resources: Resources) -> None:
        self._resources = resources
        prefix = resources.settings.redis_prefix
        self._stamp = StampWatch(RedisBatch(resources.redis), prefix, CLIENTS)
        self._cache: TTLCache[str, frozenset[str]] = TTLCache(INDEX_SECONDS, max_entries=1)

    async def allows(self, origin: str) -> bool:
        if await self._stamp.changed():
            self._cache.clear()

        async def load() -> frozenset[str]:
            async with self._resources.sessions() as session:
                return await all_web_origins(session)

        origins = await self._cache.get_or_load("all", load)
        return origins is not None and origin in origins


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def _encode(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]


class TokenCors:
    """The ASGI wrapper of the module text, in place of the app's ASGI handler."""

    def __init__(self, app: ASGIApp, litestar: Litestar) -> None:
        self.app = app
        self.litestar = litestar
        settings = self._resources.settings
        self.admin_origins = frozenset(settings.allowed_admin_origins)

    @property
    def _resources(self) -> Resources:
        resources: Resources = self.litestar.state.resources
        return resources

    def _index(self) -> OriginIndex:
        state = self.litestar.state
        index: OriginIndex | None = state.get(_STATE_KEY)
        if index is None:
            index = OriginIndex(self._resources)
            state[_STATE_KEY] = index
        return index

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path in PUBLIC_PATHS:
            await self._public(scope, receive, send)
            return
        methods = CLIENT_PATHS.get(path)
        origin = _header(scope, b"origin") if methods is not None else None
        if methods is None or origin is None:
            await self.app(scope, receive, send)
            return
        request_method = _header(scope, b"access-control-request-method")
        if is_preflight(scope["method"], origin, request_method):
            await self._preflight(origin, methods, send)
            return
        await self.app(scope, receive, self._marking(scope, origin, send))

    async def _public(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        origin = _header(scope, b"origin")
        request_method = _header(scope, b"access-control-request-method")
        if is_preflight(scope["method"], origin, request_method):
            await _answer(send, 204, preflight_headers("*", ("GET",)))
            return

        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message["headers"] if k.lower() not in _CORS_HEADERS]
                message["headers"] = [*kept, *_encode(PUBLIC_HEADERS)]
            await send(message)

        await self.app(scope, receive, marked)

    async def _allowed_for_any(self, origin: str) -> bool:
        return origin in self.admin_origins or await self._index().allows(origin)

    async def _preflight(self, origin: str, methods: tuple[str, ...], send: Send) -> None:
        try:
            allowed = await self._allowed_for_any(origin)
        except Exception as exc:
            if not is_dependency_failure(exc):
                raise
            log.warning("CORS preflight: origins unavailable (%s)", type(exc).__name__)
            await _answer(send, 503, {"Retry-After": str(RETRY_AFTER_SECONDS), "Vary": "Origin"})
            return
        if allowed:
            await _answer(send, 204, preflight_headers(origin, methods))
        else:
            await _answer(send, 403, {"Vary": "Origin"})

    def _marking(self, scope: Scope, origin: str, send: Send) -> Send:
        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message["headers"])
                already = any(k.lower() == b"access-control-allow-origin" for k, _ in headers)
                extra: dict[str, str] = {"Vary": "Origin"}
                if not already and await self._allows(scope, origin):
                    extra.update(response_headers(origin))
                message["headers"] = [*headers, *_encode(extra)]
            await send(message)

        return marked

    async def _allows(self, scope: Scope, origin: str) -> bool:
        """``origin`` may read this answer: it is one of the named client's, or, when no
        client was known, one some client allows. A failing lookup allows nothing."""
        client_id = cast(MutableMapping[str, Any], scope).get(CLIENT_KEY, _NO_CLIENT)
        try:
            client = None
            if isinstance(client_id, str) and client_id:
                client = await token_context(ASGIConnection(scope)).get_client(client_id)
            if client is not None:
                return origin in client.web_origins
            return await self._allowed_for_any(origin)
        except Exception as exc:
            if not is_dependency_failure(exc):
                raise
            log.warning("CORS: origins unavailable (%s)", type(exc).__name__)
            return False


async def _answer(send: Send, status: int, headers: dict[str, str]) -> None:
    raw = [*_encode(headers), (b"content-length", b"0")]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def install(app: Litestar) -> None:
    """Put :class:`TokenCors` in front of ``app``'s ASGI handler; installed before the lean
    routes (``token_service.lean``), which hand it every request carrying ``Origin`` and
    every path but their own."""
    app.asgi_handler = TokenCors(app.asgi_handler, app)
