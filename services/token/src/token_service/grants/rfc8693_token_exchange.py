"""RFC 8693 §2 "Token Exchange Request and Response".

    The client makes a token exchange request to the token endpoint with an extension
    grant type using the HTTP "POST" method. [...] grant_type: REQUIRED. The value
    "urn:ietf:params:oauth:grant-type:token-exchange" indicates that a token exchange is
    being performed.

A resource API, registered as a confidential client with this grant, exchanges a person's
access token it received (``subject_token``) for one addressed to another API (``audience``
and/or ``resource``), acting for them (delegation, §1.1): the new token keeps ``sub``,
names the API in ``aud`` and the exchanging client in ``act`` (§4.1). The pure rules are
:mod:`token_service.protocol.rfc8693_token_exchange`; in order:

1. the request's shape (``invalid_request``; an ``actor_token`` is refused);
2. every target is one of the client's ``tokenExchangeAudiences`` and none is the
   provider's own API, whatever the client's list holds (``invalid_target``);
3. the subject token is one of this provider's access tokens: signature by one of its
   keys, ``typ`` ``at+jwt``, ``iss``, not expired, not on the revocation list (as for
   introspection, ``token_service.introspection``), the person still able to sign in,
   and addressed to the exchanging client; a DPoP-bound one (``cnf.jkt``) comes with a
   DPoP proof, which the token endpoint verified (``token_service.dpop``); else
   ``invalid_request`` (§2.2.2);
4. every target is an API's audience (``invalid_target``); the scope narrows to the
   subject token's and the targets' (``invalid_scope`` when nothing is left).

The answer (§2.2.1) has ``issued_token_type`` ``...:access_token``, no refresh token, and
expires no later than the subject token. With a DPoP proof the new token is bound to the
proof's key (``token_type`` ``DPoP``, RFC 9449 §5). It carries the subject token's ``sid``,
so it ends with the person's session. Every exchange is audited: ``token.exchanged``, or
``token.exchange_refused`` with the reason (never the token; its ``jti`` when known).
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar, Final

import msgspec

from idp_common.protocol.constants import GRANT_TYPE_TOKEN_EXCHANGE, TOKEN_TYPE_URN_ACCESS_TOKEN
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6749_errors import InvalidRequest, OAuth2Error
from idp_common.protocol.rfc6749_scope import parse_scope
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.storage.repos.clients import ClientRecord
from token_service.context import GrantDeps
from token_service.forms import TokenRequest
from token_service.introspection import verify_access_token
from token_service.issuance import AccessTokenId, Authorization, TokenResponse, sign_tokens
from token_service.protocol.rfc8693_token_exchange import (
    ExchangeRequest,
    actor_claim,
    carried_sign_in,
    check_addressed_to,
    check_allowed_targets,
    check_sender_constraint,
    exchanged_expiry,
    exchanged_scopes,
    parse_exchange,
    token_audiences,
)
from token_service.protocol.rfc8707_resource import InvalidTarget
from token_service.resource_indicators import resource_apis
from token_service.signing import access_token_alg

AUDIT_EXCHANGED: Final = "token.exchanged"
AUDIT_EXCHANGE_REFUSED: Final = "token.exchange_refused"
_BAD_SUBJECT: Final = "the subject_token is not a valid access token of this provider"


async def subject_claims(deps: GrantDeps, token: str) -> dict[str, Any]:
    """The claims of a valid access token of this provider that still stands (not
    revoked, its session not ended, its person and client still there:
    :mod:`idp_common.web.token_standing`); else ``InvalidRequest`` (RFC 8693 §2.2.2)."""
    claims = verify_access_token(deps, token)
    if claims is None or not isinstance(claims.get("exp"), int):
        raise InvalidRequest(_BAD_SUBJECT)
    if not isinstance(claims.get("sub"), str):
        raise InvalidRequest(_BAD_SUBJECT)
    standing = await deps.ctx.token_standing.check(claims)
    if standing.refusal == "revoked":
        raise InvalidRequest(_BAD_SUBJECT)
    if standing.refusal == "subject inactive":
        raise InvalidRequest("the person of the subject_token can no longer sign in")
    if standing.refusal is not None:
        raise InvalidRequest(f"the subject_token no longer stands: {standing.refusal}")
    return claims


async def represented_audiences(deps: GrantDeps, client: ClientRecord) -> set[str]:
    """The audiences of the APIs (not the provider's own) of which the client holds a scope."""
    found = await deps.ctx.audiences_for(sorted(client.scopes))
    return set(found.audiences) - {deps.ctx.settings.api_audience}


async def exchange(
    deps: GrantDeps, client: ClientRecord, req: ExchangeRequest, claims: dict[str, Any]
) -> TokenResponse:
    """Steps 3 (addressee, proof) and 4 of the module, then the new token."""
    check_addressed_to(
        token_audiences(claims), client.client_id, await represented_audiences(deps, client)
    )
    check_sender_constraint(claims, deps.dpop_jkt)  # sign_tokens binds to deps.dpop_jkt
    apis = await resource_apis(deps.ctx, req.targets)
    if any(target not in apis for target in req.targets):
        raise InvalidTarget("the audience is not a known API")
    chosen = [apis[target] for target in req.targets]
    allowed = frozenset().union(*(api.scopes for api in chosen))
    scopes = exchanged_scopes(req.scopes, parse_scope(claims.get("scope")), allowed)
    pairs = [(api.audience, api.alg) for api in chosen]
    signed_in = carried_sign_in(claims)
    auth = Authorization(
        subject=claims["sub"],
        client_id=client.client_id,
        scopes=scopes,
        audiences=req.targets,
        auth_time=signed_in.auth_time,
        acr=signed_in.acr,
        amr=signed_in.amr,
        sid=signed_in.sid,  # so it ends with the subject token's session
        access_token_alg=access_token_alg(pairs, deps.ctx.settings.api_audience),
        act=actor_claim(client.client_id, claims.get("act")),
    )
    ttl = deps.ctx.settings.access_token_ttl
    ident = AccessTokenId(uuid.uuid4().hex, exchanged_expiry(deps.now, ttl, claims["exp"]))
    response = sign_tokens(deps, auth, ident)
    return msgspec.structs.replace(response, issued_token_type=TOKEN_TYPE_URN_ACCESS_TOKEN)


class TokenExchangeGrant:
    grant_type: ClassVar[str] = GRANT_TYPE_TOKEN_EXCHANGE
    parameters: ClassVar[frozenset[str]] = frozenset(
        {
            "subject_token",
            "subject_token_type",
            "actor_token",
            "actor_token_type",
            "requested_token_type",
            "audience",
            "resource",
            "scope",
        }
    )
    requires_client_auth: ClassVar[bool] = True

    async def handle(
        self, req: TokenRequest, client: ClientRecord, deps: GrantDeps
    ) -> TokenResponse:
        detail: dict[str, Any] = {}
        try:
            parsed = parse_exchange(
                subject_token=req.subject_token,
                subject_token_type=req.subject_token_type,
                actor_token=req.actor_token,
                actor_token_type=req.actor_token_type,
                requested_token_type=req.requested_token_type,
                audiences=req.audience,
                resources=req.resource,
                scope=req.scope,
            )
            detail["targets"] = list(parsed.targets)
            detail["subject_token_digest_prefix"] = digest(parsed.subject_token).hex()[:12]
            check_allowed_targets(
                parsed.targets,
                client.token_exchange_audiences,
                own_api=deps.ctx.settings.api_audience,
            )
            claims = await subject_claims(deps, parsed.subject_token)
            detail["subject_jti"] = claims["jti"]
            response = await exchange(deps, client, parsed, claims)
        except OAuth2Error as exc:
            detail["reason"] = exc.error
            if exc.description:
                detail["description"] = exc.description
            await _audit(deps, client, AUDIT_EXCHANGE_REFUSED, 400, None, detail)
            raise
        detail["scope"] = response.scope
        await _audit(deps, client, AUDIT_EXCHANGED, 200, claims["sub"], detail)
        return response


async def _audit(
    deps: GrantDeps,
    client: ClientRecord,
    action: str,
    status: int,
    subject: str | None,
    detail: dict[str, Any],
) -> None:
    entry = AuditEntry(
        action=action,
        status_code=status,
        ip=deps.ip,
        actor=client.client_id,
        target_type="subject" if subject else None,
        target=subject,
        detail=detail,
    )
    await record_refusal(deps.ctx.resources.sessions, entry)
