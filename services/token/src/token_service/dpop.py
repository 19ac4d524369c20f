"""DPoP at the token endpoint (RFC 9449 §5), an extension every grant gets (docs/style.md §3).

After the client is authenticated, the request's ``DPoP`` proof (if any) is checked for
``POST`` at the token endpoint's public URL (``idp_common.web.dpop``); its key's
thumbprint goes into :class:`~token_service.context.GrantDeps` (``dpop_jkt``), and
:mod:`token_service.issuance` then binds the access token (``cnf.jkt``) and answers
``token_type: DPoP``. A client registered with ``dpop_bound_access_tokens`` (RFC 9449
§5.2), or under the FAPI 2.0 profile (sender-constrained tokens are required there),
must send a proof: without one the request is ``invalid_request``.

An authorization request may name the key with ``dpop_jkt`` (§10): the code then carries
it, and its exchange needs a proof of that key (:func:`check_code_binding`).

Refresh tokens of public clients are bound to the proof's key too (§5: the code grant
stores the thumbprint with the first refresh token, rotation carries it forward, and
:func:`check_refresh_binding` refuses a bound token presented without the same key);
confidential clients' refresh tokens are bound to their authentication instead, so they
are not bound to a key.
"""

from __future__ import annotations

import hmac
from dataclasses import replace
from typing import Any

from litestar import Request, Response

from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest
from idp_common.storage.repos.clients import ClientRecord
from idp_common.web.dpop import nonce_header, request_proof
from token_service.context import GrantDeps


def requires_dpop(client: ClientRecord) -> bool:
    """RFC 9449 §5.2 ``dpop_bound_access_tokens``, or the FAPI 2.0 profile."""
    return client.dpop_bound_access_tokens or client.is_fapi2


async def bind_dpop(
    request: Request[Any, Any, Any], deps: GrantDeps, client: ClientRecord
) -> GrantDeps:
    """``deps`` with the proof's ``dpop_jkt``; raises ``InvalidDpopProof``,
    ``UseDpopNonce`` or, for a client that needs a proof and sent none, ``InvalidRequest``."""
    proof = await request_proof(request, now=deps.now)
    if proof is None:
        if requires_dpop(client):
            raise InvalidRequest("DPoP proof required")
        return deps
    return replace(deps, dpop_jkt=proof.jkt)


def refresh_jkt(client: ClientRecord, proved: str | None) -> str | None:
    """The key a new refresh token is bound to: a public client's proof key (``proved``,
    the request's ``dpop_jkt``), else none."""
    return None if client.is_confidential else proved


def check_refresh_binding(bound: str | None, proved: str | None) -> None:
    """A refresh token bound to a key needs a proof with that key (RFC 9449 §5)."""
    if bound is None:
        return
    if proved is None or not hmac.compare_digest(bound, proved):
        raise InvalidGrant("the refresh token is bound to another DPoP key")


def check_code_binding(bound: str | None, proved: str | None) -> None:
    """A code requested with ``dpop_jkt`` is exchanged only with a proof of that key
    (RFC 9449 §10); the refusal burns the code like any other."""
    if bound is None:
        return
    if proved is None or not hmac.compare_digest(bound, proved):
        raise InvalidGrant("the authorization code is bound to another DPoP key")


def with_nonce(response: Response[bytes], deps: GrantDeps) -> Response[bytes]:
    """The next ``DPoP-Nonce`` on a success, when nonces are on (RFC 9449 §8)."""
    response.headers.update(nonce_header(deps.ctx.settings, deps.now))
    return response
