"""The public keys a ``private_key_jwt`` client signs its assertions with (RFC 7523 §2.2,
OIDC Core §9, OIDC Registration §2 ``jwks`` / ``jwks_uri``).

- ``jwks`` stored on the client: parsed with joserfc once per worker and value.
- ``jwks_uri``: fetched with a GET, no redirects followed, :data:`FETCH_TIMEOUT_SECONDS`
  from start to the last byte, at most :data:`MAX_JWKS_BYTES` read (a longer answer is a
  failure), status 200 and a JSON ``{"keys": [...]}``. Kept per worker for
  :data:`CACHE_SECONDS`; an assertion whose ``kid`` the kept set lacks makes one refetch
  (the client rotated its keys), at most one fetch per client every
  :data:`REFETCH_INTERVAL_SECONDS`, whatever its outcome, so a stream of assertions with
  made-up ``kid`` values cannot make the provider hammer a host. A failed fetch keeps the
  previous set if there was one.
- Where the GET may go: as for back-channel logout (:mod:`idp_common.outbound_http`),
  unless the deployment allows it (``SVC_CLIENT_JWKS_ALLOW_PRIVATE``), the connection
  resolves the host itself, refuses it when any resolved address is loopback, private,
  link-local or otherwise not global (:mod:`idp_common.protocol.rfc6890_special_addresses`)
  and connects to the very address it checked (no second resolution: DNS rebinding cannot
  slip through). The admin API refuses such a URI at registration already.

A set that cannot be had is :class:`ClientKeysUnavailable` (the caller answers
``invalid_client``), logged with the client and the reason, never a 500.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from idp_common.outbound_http import CheckedTransport, ForbiddenAddress
from idp_common.storage.repos.clients import ClientRecord
from token_service.protocol.rfc7523_client_assertion import has_kid

log = logging.getLogger("idp.client_keys")

FETCH_TIMEOUT_SECONDS: Final = 3.0
MAX_JWKS_BYTES: Final = 64 * 1024
CACHE_SECONDS: Final = 300.0
REFETCH_INTERVAL_SECONDS: Final = 10.0
#: Clients whose keys a worker keeps at once; past it the cache starts again empty.
MAX_CACHED_CLIENTS: Final = 10_000
USER_AGENT: Final = "idp-client-keys"
#: No idle connections kept: a client's keys are fetched every few minutes at most.
_LIMITS: Final = httpx.Limits(max_connections=100, max_keepalive_connections=0)


class ClientKeysUnavailable(Exception):
    """The client's key set cannot be had now; ``reason`` is safe to show."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def new_http_client(*, allow_private: bool) -> httpx.AsyncClient:
    """The client of the ``jwks_uri`` GETs (see the module text)."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(FETCH_TIMEOUT_SECONDS),
        transport=None if allow_private else CheckedTransport(_LIMITS),
        follow_redirects=False,
        trust_env=False,
        headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
    )


def parse_key_set(value: Any) -> KeySet:
    """A JWK Set document as joserfc keys; ``ClientKeysUnavailable`` when it is not one."""
    if not isinstance(value, dict) or not isinstance(value.get("keys"), list):
        raise ClientKeysUnavailable("the client's key set is not a JWK Set")
    try:
        return KeySet.import_key_set({"keys": value["keys"]})
    except (JoseError, ValueError, TypeError, KeyError) as exc:
        raise ClientKeysUnavailable("the client's key set cannot be read") from exc


async def fetch_key_set(http: httpx.AsyncClient, uri: str) -> KeySet:
    """GET ``uri`` within the time and size bounds; ``ClientKeysUnavailable`` else."""
    body = bytearray()
    try:
        async with asyncio.timeout(FETCH_TIMEOUT_SECONDS):
            async with http.stream("GET", uri) as response:
                if response.status_code != 200:
                    raise ClientKeysUnavailable(f"jwks_uri answered {response.status_code}")
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_JWKS_BYTES:
                        raise ClientKeysUnavailable("jwks_uri answered more than 64 KB")
    except ForbiddenAddress as exc:
        raise ClientKeysUnavailable("jwks_uri names a forbidden address") from exc
    except (httpx.HTTPError, TimeoutError, OSError) as exc:
        raise ClientKeysUnavailable("jwks_uri unreachable") from exc
    try:
        document = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ClientKeysUnavailable("jwks_uri did not answer JSON") from exc
    return parse_key_set(document)


@dataclass
class _Fetched:
    uri: str
    keys: KeySet | None = None
    fetched_at: float = -1e18
    attempted_at: float = -1e18


@dataclass
class ClientKeys:
    """One worker's client key sets: inline ``jwks`` parsed, ``jwks_uri`` fetched."""

    inline: dict[str, tuple[dict[str, Any], KeySet]] = field(default_factory=dict)
    remote: dict[str, _Fetched] = field(default_factory=dict)
    locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    http: httpx.AsyncClient | None = None

    async def key_set(
        self,
        client: ClientRecord,
        *,
        kid: str | None,
        allow_private: bool,
        now: float | None = None,
    ) -> KeySet:
        """The keys ``client`` registered, fresh enough for an assertion naming ``kid``."""
        if client.jwks is not None:
            return self._inline(client.client_id, client.jwks)
        if client.jwks_uri is None:
            raise ClientKeysUnavailable("the client has registered no keys")
        moment = time.monotonic() if now is None else now
        if client.client_id not in self.locks:
            self._bound(self.locks)
        lock = self.locks.setdefault(client.client_id, asyncio.Lock())
        async with lock:
            return await self._remote(client.client_id, client.jwks_uri, kid, allow_private, moment)

    def _inline(self, client_id: str, jwks: dict[str, Any]) -> KeySet:
        kept = self.inline.get(client_id)
        if kept is not None and kept[0] == jwks:
            return kept[1]
        keys = parse_key_set(jwks)
        self._bound(self.inline)
        self.inline[client_id] = (jwks, keys)
        return keys

    async def _remote(
        self, client_id: str, uri: str, kid: str | None, allow_private: bool, now: float
    ) -> KeySet:
        entry = self.remote.get(client_id)
        if entry is None or entry.uri != uri:
            self._bound(self.remote)
            entry = self.remote[client_id] = _Fetched(uri)
        fresh = entry.keys is not None and now - entry.fetched_at < CACHE_SECONDS
        if fresh and entry.keys is not None and has_kid(entry.keys, kid):
            return entry.keys
        if now - entry.attempted_at < REFETCH_INTERVAL_SECONDS:
            if entry.keys is None:
                raise ClientKeysUnavailable("the client's jwks_uri could not be fetched")
            return entry.keys
        entry.attempted_at = now
        try:
            entry.keys = await fetch_key_set(self._client(allow_private), uri)
            entry.fetched_at = now
        except ClientKeysUnavailable as exc:
            log.warning("jwks_uri of client %s: %s", client_id[:100], exc.reason)
            if entry.keys is None:
                raise
        return entry.keys

    def _client(self, allow_private: bool) -> httpx.AsyncClient:
        if self.http is None:
            self.http = new_http_client(allow_private=allow_private)
        return self.http

    @staticmethod
    def _bound(cache: dict[str, Any]) -> None:
        if len(cache) >= MAX_CACHED_CLIENTS:
            cache.clear()
