"""Pushed authorization requests in Redis (RFC 9126, :mod:`idp_common.protocol.rfc9126_par`).

One key per ``request_uri``: ``{prefix}par:{SHA-256 of client_id and reference}``, holding
the :class:`~idp_common.protocol.rfc9126_par.PushedRequest` as JSON, expiring after the
lifetime given at push (``SVC_PAR_REQUEST_TTL``). The client is part of the key: another
client presenting the ``request_uri`` names a key that does not exist, so it neither reads
the request nor spends it for its owner. :meth:`PushedRequests.take` reads and deletes in
one command (GETDEL): of two concurrent uses exactly one gets the request.

Redis errors propagate (the endpoints answer 503).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

import msgspec
from redis.asyncio import Redis

from idp_common.protocol.rfc9126_par import (
    REFERENCE_BYTES,
    PushedRequest,
    new_request_uri,
    reference_of,
)

__all__ = ["PushedRequests"]

_decode: Final = msgspec.json.Decoder(PushedRequest).decode
_encode: Final = msgspec.json.Encoder().encode


class PushedRequests:
    """The pushed requests of one deployment (``prefix``)."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix

    def _key(self, client_id: str, reference: str) -> str:
        bound = hashlib.sha256(f"{client_id}\n{reference}".encode()).hexdigest()
        return f"{self.prefix}par:{bound}"

    async def push(self, stored: PushedRequest, lifetime: int) -> str:
        """Keep the validated request for ``lifetime`` seconds; its ``request_uri``."""
        request_uri, reference = new_request_uri(secrets.token_bytes(REFERENCE_BYTES))
        key = self._key(stored.client_id, reference)
        await self.redis.set(key, _encode(stored), ex=lifetime)
        return request_uri

    async def take(self, client_id: str, request_uri: str) -> PushedRequest | None:
        """The request pushed by ``client_id`` under ``request_uri``, removed as it is read;
        None when there is none (unknown, expired, used, or another client's)."""
        reference = reference_of(request_uri)
        if reference is None:
            return None
        raw = await self.redis.getdel(self._key(client_id, reference))
        if not isinstance(raw, bytes):
            return None
        stored = _decode(raw)
        return stored if stored.client_id == client_id else None
