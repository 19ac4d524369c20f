"""Building and signing what the token endpoint returns.

- Access token: RFC 9068 JWT (``typ: at+jwt``), signed with the granted APIs' algorithm
  (RS256 by default; :mod:`token_service.signing`); ``aud`` is the provider's API
  audience (``{issuer}/api``) for tokens about a person, plus the audiences of the other
  APIs whose scopes were granted; a string when there is one (RFC 7519 §4.1.3).
- ID token: OIDC Core §2 (``typ: JWT``), signed with the client's
  ``id_token_signed_response_alg``, with ``nonce`` (code grant only), ``sid`` (the
  code's session reference), ``at_hash`` (by that algorithm's hash), ``auth_time``,
  ``acr``, ``amr`` and the claims the granted scopes release (as for userinfo,
  :func:`released_claims`).
- :class:`TokenResponse`: RFC 6749 §5.1 body; ``token_type`` ``DPoP`` and the access token
  bound with ``cnf.jkt`` when the request carried a DPoP proof (RFC 9449 §5, §6.1).

The order of a grant that spends something (a code, a refresh token; docs/security.md,
attack 5): the access token's ``jti`` and ``exp`` are chosen first (:func:`new_access_token_id`),
the grant spends in a transaction and, before it commits, writes the ``jti`` under its
grant in Redis (:func:`track_access_token`, so that a later code replay or refresh reuse
can revoke it). A Redis failure therefore rolls the spend back: the client gets 503 and
its retry with the same code or refresh token works, instead of looking like a replay.
Signing (:func:`sign_tokens`) happens after the commit, so no database connection is held
while the CPU signs; it cannot fail for a reason the client could retry.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import msgspec

from idp_common.avatars.names import public_url
from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, TYP_JWT, access_token_claims, sign_jwt
from idp_common.profile_fields.values import from_text
from idp_common.protocol.constants import (
    ACR_ONE_FACTOR,
    SCOPE_EMAIL,
    SCOPE_OPENID,
    SCOPE_PROFILE,
    SIGNING_ALGORITHM,
    TOKEN_TYPE_BEARER,
    TOKEN_TYPE_DPOP,
)
from idp_common.protocol.oidc_core_claims import id_token_claims
from idp_common.protocol.rfc6749_scope import format_scope
from idp_common.storage.repos.clients import ClientRecord
from token_service.context import GrantDeps
from token_service.repos.people import UserClaims


class TokenResponse(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """RFC 6749 §5.1 (and OIDC Core §3.1.3.3 ``id_token``)."""

    access_token: str
    token_type: str
    expires_in: int
    scope: str
    id_token: str | None = None
    refresh_token: str | None = None
    #: RFC 8693 §2.2.1: the token exchange's answer only.
    issued_token_type: str | None = None


@dataclass(frozen=True)
class Authorization:
    """What a grant decided: who, for which client, which scopes, how they signed in."""

    subject: str
    client_id: str
    scopes: list[str]
    audiences: Sequence[str]
    auth_time: int | None = None
    acr: str | None = None
    amr: Sequence[str] | None = None
    sid: str | None = None
    grant_id: uuid.UUID | None = None
    user: UserClaims | None = None
    nonce: str | None = None
    access_token_alg: str = SIGNING_ALGORITHM
    id_token_alg: str = SIGNING_ALGORITHM
    #: RFC 8693 §4.1 ``act`` of an exchanged token (the acting client).
    act: dict[str, Any] | None = None


class GrantOrigin(Protocol):
    """What a code or refresh token says about how the person signed in."""

    @property
    def grant_id(self) -> uuid.UUID | None: ...
    @property
    def auth_time(self) -> datetime | None: ...
    @property
    def acr(self) -> str | None: ...
    @property
    def amr(self) -> list[str]: ...
    @property
    def session_sid(self) -> str | None: ...


async def grant_authorization(
    deps: GrantDeps,
    client: ClientRecord,
    scopes: list[str],
    origin: GrantOrigin,
    *,
    user_id: uuid.UUID | None,
    person: UserClaims | None,
    nonce: str | None = None,
) -> Authorization:
    """The :class:`Authorization` of a code or refresh token of ``client``: about the
    person ``user_id`` (the provider's API first among the audiences), or about the client
    itself when there is none."""
    found = await deps.ctx.audiences_for(scopes)
    audiences: Sequence[str] = found.audiences
    if user_id is not None:
        audiences = person_audiences(deps.ctx.settings.api_audience, audiences)
    client_id = client.client_id
    return Authorization(
        subject=str(user_id) if user_id is not None else client_id,
        client_id=client_id,
        scopes=scopes,
        audiences=audiences,
        auth_time=int(origin.auth_time.timestamp()) if origin.auth_time else None,
        acr=origin.acr,
        amr=origin.amr,
        sid=origin.session_sid,
        grant_id=origin.grant_id,
        user=person,
        nonce=nonce,
        access_token_alg=found.alg,
        id_token_alg=client.id_token_signed_response_alg,
    )


def audience_claim(audiences: Sequence[str]) -> str | list[str]:
    unique = list(dict.fromkeys(audiences))
    return unique[0] if len(unique) == 1 else unique


def person_audiences(api_audience: str, other: Sequence[str]) -> list[str]:
    """The provider's API first, then every other API whose scope was granted."""
    return list(dict.fromkeys([api_audience, *other]))


def released_claims(
    person: UserClaims, scopes: Collection[str], issuer_base: str
) -> dict[str, Any]:
    """OIDC Core §5.4: ``email`` releases email and email_verified; ``profile`` releases
    name, preferred_username, picture (the public photo URL) and updated_at; a mapped
    profile field is released when its ``claimScope`` was granted (contract §2)."""
    user = person.user
    claims: dict[str, Any] = {}
    if SCOPE_EMAIL in scopes:
        claims["email"] = user.email
        claims["email_verified"] = user.email_verified
    if SCOPE_PROFILE in scopes:
        if user.display_name:
            claims["name"] = user.display_name
        if user.username:
            claims["preferred_username"] = user.username
        if user.picture:
            claims["picture"] = public_url(issuer_base, user.picture)
        claims["updated_at"] = int(user.updated_at.timestamp())
    for claim in person.mapped:
        if claim.scope in scopes and claim.name not in claims:
            claims[claim.name] = from_text(claim.data_type, claim.value)
    return claims


@dataclass(frozen=True)
class AccessTokenId:
    """The ``jti`` and ``exp`` of an access token about to be issued."""

    jti: str
    exp: int


def new_access_token_id(deps: GrantDeps) -> AccessTokenId:
    return AccessTokenId(uuid.uuid4().hex, deps.now + deps.ctx.settings.access_token_ttl)


async def track_access_token(deps: GrantDeps, grant_id: uuid.UUID, ident: AccessTokenId) -> None:
    """Remember the token under its grant (Redis), before the grant's spend commits."""
    await deps.ctx.revocations.track_grant_jti(grant_id, ident.jti, exp=ident.exp, now=deps.now)


def sign_access_token(deps: GrantDeps, auth: Authorization, ident: AccessTokenId) -> str:
    settings = deps.ctx.settings
    claims = access_token_claims(
        issuer=settings.issuer,
        subject=auth.subject,
        audience="",
        client_id=auth.client_id,
        scope=auth.scopes,
        now=deps.now,
        jti=ident.jti,
        ttl=ident.exp - deps.now,
        auth_time=auth.auth_time,
        acr=auth.acr,
        amr=auth.amr,
        sid=auth.sid,
    )
    claims["aud"] = audience_claim(auth.audiences)
    if auth.act:
        claims["act"] = auth.act
    if deps.dpop_jkt is not None:  # RFC 9449 §6.1: bound to the proof's key
        claims["cnf"] = {"jkt": deps.dpop_jkt}
    return sign_jwt(
        claims, deps.ctx.keys, typ=TYP_ACCESS_TOKEN, now=deps.now, alg=auth.access_token_alg
    )


def sign_id_token(deps: GrantDeps, auth: Authorization, access_token: str) -> str:
    settings = deps.ctx.settings
    extra = released_claims(auth.user, auth.scopes, settings.issuer_base) if auth.user else None
    claims = id_token_claims(
        issuer=settings.issuer,
        subject=auth.subject,
        client_id=auth.client_id,
        now=deps.now,
        ttl=settings.access_token_ttl,
        auth_time=auth.auth_time if auth.auth_time is not None else deps.now,
        acr=auth.acr or ACR_ONE_FACTOR,
        amr=auth.amr or (),
        nonce=auth.nonce,
        sid=auth.sid,
        access_token=access_token,
        extra=extra,
        alg=auth.id_token_alg,
    )
    return sign_jwt(claims, deps.ctx.keys, typ=TYP_JWT, now=deps.now, alg=auth.id_token_alg)


def sign_tokens(
    deps: GrantDeps,
    auth: Authorization,
    ident: AccessTokenId,
    *,
    refresh_token: str | None = None,
) -> TokenResponse:
    """Sign the access token ``ident`` (and the ID token when ``openid`` was granted).

    A token with a ``grant_id`` must have been tracked (:func:`track_access_token`) in
    the transaction that spent its code or refresh token; signing writes nothing."""
    access_token = sign_access_token(deps, auth, ident)
    id_token = sign_id_token(deps, auth, access_token) if SCOPE_OPENID in auth.scopes else None
    return TokenResponse(
        access_token=access_token,
        token_type=TOKEN_TYPE_BEARER if deps.dpop_jkt is None else TOKEN_TYPE_DPOP,
        expires_in=ident.exp - deps.now,
        scope=format_scope(auth.scopes),
        id_token=id_token,
        refresh_token=refresh_token,
    )
