"""DPoP proofs on requests (RFC 9449): what the token endpoint and every resource that
takes access tokens (userinfo, ``/admin/*``, ``/entity/*``) share.

- :func:`request_proof` reads the one ``DPoP`` header of a request and checks it with
  :func:`idp_common.protocol.rfc9449_dpop.verify_proof`: ``htm`` the request's method,
  ``htu`` the *public* URL the client called: the configured issuer's origin and base
  (``SVC_ISSUER``, never the ``Host`` header) with the request's path, which is what the
  proxy forwards unchanged; ``nonce`` one of the server's nonces when ``SVC_DPOP_NONCE``
  is on; then the ``jti``'s single use (:class:`idp_common.state.dpop_replay.DpopReplayCache`).
- :func:`nonce_header` is the ``DPoP-Nonce`` header to add to a response when nonces are
  on (RFC 9449 §8: a server may hand out the next nonce on any response).

A Redis failure in the replay check propagates, so the caller's mapping answers 503 with
``Retry-After``.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import quote

from litestar.connection import ASGIConnection

from idp_common.config import Settings
from idp_common.protocol.rfc9449_dpop import (
    DPOP_HEADER,
    DPOP_NONCE_HEADER,
    DpopProof,
    DpopRefusedAtResource,
    InvalidDpopProof,
    UseDpopNonce,
    acceptable_nonces,
    bound_jkt,
    single_proof,
    verify_proof,
)
from idp_common.state.dpop_replay import DpopReplayCache
from idp_common.web.caller import resources_of

__all__ = ["check_resource_dpop", "nonce_header", "proof_header", "request_proof", "request_url"]

_STATE: Final = "dpop_replay_cache"
#: RFC 3986 §3.3 characters a path carries unencoded.
_PATH_SAFE: Final = "/:@!$&'()*+,;=-._~"


def proof_header(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    """The one ``DPoP`` header value, None when absent; ``InvalidDpopProof`` for two."""
    return single_proof(connection.headers.getall(DPOP_HEADER.lower(), []))


def request_url(settings: Settings, connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The URL the client called, as the proxy publishes it (query left out): the path as
    sent (ASGI ``raw_path``, still percent-encoded), else the decoded path re-encoded."""
    raw = connection.scope.get("raw_path")
    if isinstance(raw, bytes) and raw:
        path = raw.decode("latin-1").split("?", 1)[0]
    else:
        path = quote(connection.url.path, safe=_PATH_SAFE)
    return settings.issuer_base + path


def nonces(settings: Settings, now: int) -> tuple[str, str] | None:
    key = settings.dpop_nonce_key
    return None if key is None else acceptable_nonces(key, now)


def nonce_header(settings: Settings, now: int) -> dict[str, str]:
    """``{"DPoP-Nonce": the current nonce}`` when nonces are on, else nothing."""
    current = nonces(settings, now)
    return {} if current is None else {DPOP_NONCE_HEADER: current[0]}


def _replay_cache(connection: ASGIConnection[Any, Any, Any, Any]) -> DpopReplayCache:
    state = connection.app.state
    cache: DpopReplayCache | None = state.get(_STATE)
    if cache is None:
        resources = resources_of(connection)
        cache = DpopReplayCache(resources.redis, resources.settings.redis_prefix)
        state[_STATE] = cache
    return cache


async def request_proof(
    connection: ASGIConnection[Any, Any, Any, Any],
    *,
    now: int,
    access_token: str | None = None,
    proof: str | None = None,
) -> DpopProof | None:
    """The request's checked DPoP proof (``proof``: its header value, read here when
    None), None when it carries none. Raises ``InvalidDpopProof`` (replay included) or
    ``UseDpopNonce``."""
    if proof is None:
        proof = proof_header(connection)
        if proof is None:
            return None
    settings = resources_of(connection).settings
    checked = verify_proof(
        proof,
        method=connection.scope["method"],  # type: ignore[typeddict-item]
        url=request_url(settings, connection),
        now=now,
        access_token=access_token,
        nonces=nonces(settings, now),
    )
    if not await _replay_cache(connection).first_use(checked.jkt, checked.jti):
        raise InvalidDpopProof("the DPoP proof was already used")
    return checked


async def check_resource_dpop(
    connection: ASGIConnection[Any, Any, Any, Any],
    *,
    token: str,
    claims: Mapping[str, Any],
    dpop_scheme: bool,
    now: int,
) -> None:
    """RFC 9449 §7 at a resource, for an access token already verified (``claims``):
    a bound token (``cnf.jkt``) only with the ``DPoP`` scheme and a proof of that key
    for this request (``ath`` of ``token``); the ``DPoP`` scheme only with a bound token.
    Raises :class:`DpopRefusedAtResource` (401 with a ``DPoP`` challenge)."""
    jkt = bound_jkt(claims)
    if not dpop_scheme:
        if jkt is not None:  # §7.2: a bound token is no bearer token
            raise DpopRefusedAtResource(
                "invalid_token", "the access token is DPoP-bound: send it with the DPoP scheme"
            )
        return
    if jkt is None:
        raise DpopRefusedAtResource("invalid_token", "the access token is not DPoP-bound")
    try:
        proof = await request_proof(connection, now=now, access_token=token)
    except (InvalidDpopProof, UseDpopNonce) as exc:
        raise DpopRefusedAtResource.of(exc) from exc
    if proof is None:
        raise DpopRefusedAtResource("invalid_dpop_proof", "a DPoP proof is required")
    if not hmac.compare_digest(proof.jkt, jkt):
        raise DpopRefusedAtResource("invalid_token", "the access token is bound to another key")
