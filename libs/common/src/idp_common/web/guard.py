"""The bearer-token guard for ``/admin/*`` and ``/entity/*`` (contract §5 and §7).

Validation (contract §5 "Validation rules"): RS256 signature by a published key, ``typ``
``at+jwt`` (RFC 9068), ``iss`` equal to the issuer, ``aud`` equal to the provider's API
audience, not expired. Then the token must still stand: not revoked, its browser session
not ended, its person active, its client present, enabled and still holding the token's
scopes (:mod:`idp_common.web.token_standing`: one shared Redis read per event-loop turn,
the person's and the client's facts kept per worker until a change stamp moves). A worker
that cannot read Redis or the database cannot tell: 503 (fail closed).

DPoP (RFC 9449 §7): a token bound to a key (``cnf.jkt``) is accepted only as
``Authorization: DPoP`` with a ``DPoP`` proof of that key for this method and public URL,
carrying the token's ``ath`` (``idp_common.web.dpop``); as ``Bearer`` it is 401
``invalid_token``, a bad proof 401 ``invalid_dpop_proof``, each with a ``DPoP`` challenge.

Then the one permission the route declares must be among the token's scopes.

- missing, expired, malformed, wrong-audience, badly signed token, or one that no longer
  stands: 401 with ``WWW-Authenticate: Bearer`` (RFC 6750 §3,
  ``error="invalid_token"`` when one was sent); one that no longer stands is audited
  (``access.refused``, with the reason);
- valid token without the permission: 403, ``error="insufficient_scope"``, audited.
Failed authentications count against a per-address limit (429 past it). The limit fails
open: with Redis unreachable a bad token is still 401, with a log line.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

import msgspec
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from redis.exceptions import RedisError

from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, InvalidToken, verify_jwt
from idp_common.errors import PermissionDenied, RateLimited, Unauthenticated
from idp_common.protocol.rfc9449_dpop import DpopRefusedAtResource, dpop_challenge
from idp_common.state.address_limits import AUTH_FAIL
from idp_common.state.change_stamp import USERS
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.dpop import check_resource_dpop
from idp_common.web.token_standing import TokenStanding

log = logging.getLogger("idp.guard")
PERMISSION_OPT = "permission"
SECURITY_SCHEME = "BearerToken"
#: The change stamp bumped after a person's standing changed (disabled, deleted,
#: credentials changed).
USERS_STAMP: Final = USERS
_STANDING_STATE: Final = "bearer_standing"
_DPOP_SCHEME: Final = "dpop"
_SCHEMES: Final = frozenset({"bearer", _DPOP_SCHEME})


class Caller(msgspec.Struct, frozen=True):
    """Who called, as the validated access token says; ``session``: the JSON of the live
    browser session the token stands on, ``credentials_changed_at``: the person's last
    credential change (epoch seconds), both for the recent-sign-in check
    (:mod:`idp_common.web.recent_auth`)."""

    subject: str
    client_id: str | None
    scopes: frozenset[str]
    auth_time: int | None
    claims: dict[str, Any]
    session: bytes | None = None
    credentials_changed_at: float | None = None


def requires(permission: str) -> dict[str, Any]:
    """Route-decorator arguments declaring the route's one permission, also in OpenAPI."""
    return {
        "guards": [bearer_guard],
        "opt": {PERMISSION_OPT: permission},
        "security": [{SECURITY_SCHEME: [permission]}],
    }


def _bearer_token(connection: ASGIConnection[Any, Any, Any, Any]) -> tuple[str, bool] | None:
    """(the access token, whether it came with the ``DPoP`` scheme, RFC 9449 §7.1)."""
    header = connection.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    scheme = scheme.lower()
    if scheme not in _SCHEMES or not token.strip():
        return None
    return token.strip(), scheme == _DPOP_SCHEME


def _standing(connection: ASGIConnection[Any, Any, Any, Any]) -> TokenStanding:
    state = connection.app.state
    standing: TokenStanding | None = state.get(_STANDING_STATE)
    if standing is None:
        standing = TokenStanding(resources_of(connection))
        state[_STANDING_STATE] = standing
    return standing


async def _count_failure(connection: ASGIConnection[Any, Any, Any, Any]) -> None:
    """Count a failed authentication of the caller's address; 429 past the limit."""
    resources = resources_of(connection)
    try:
        result = await AUTH_FAIL.hit(resources.limiter, resources.settings, caller_ip(connection))
    except (RedisError, OSError) as exc:
        # Fail open: without Redis the count cannot be kept, but the token is still bad,
        # and "401" is the truth where a 500 would hide it (docs/security.md, attack 17).
        log.warning("failed-authentication limit not applied (%s)", type(exc).__name__)
    else:
        if not result.allowed:
            raise RateLimited("too many failed authentications", retry_after=result.retry_after)


def _unauthenticated(reason: str, sent: bool) -> Unauthenticated:
    challenge = 'Bearer realm="idp"'
    if sent:
        challenge += f', error="invalid_token", error_description="{reason}"'
    else:  # RFC 9449 §7.1: both schemes are accepted, both are offered
        challenge += ", " + dpop_challenge()
    return Unauthenticated(
        f"access token {reason}" if sent else "bearer access token required",
        code="auth.invalid_token" if sent else "auth.missing_token",
        headers={"WWW-Authenticate": challenge},
    )


async def _refuse(connection: ASGIConnection[Any, Any, Any, Any], reason: str, sent: bool) -> None:
    await _count_failure(connection)
    raise _unauthenticated(reason, sent)


async def bearer_guard(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    permission: str = handler.opt[PERMISSION_OPT]
    resources = resources_of(connection)
    presented = _bearer_token(connection)
    if presented is None:
        await _refuse(connection, "missing", sent=False)
        return
    token, dpop, now = *presented, int(time.time())
    try:
        claims = verify_jwt(
            token,
            resources.keys,
            issuer=resources.settings.issuer,
            audience=resources.settings.api_audience,
            now=now,
            typ=TYP_ACCESS_TOKEN,
        )
    except InvalidToken as exc:
        await _refuse(connection, exc.reason, sent=True)
        return
    try:
        await check_resource_dpop(connection, token=token, claims=claims, dpop_scheme=dpop, now=now)
    except DpopRefusedAtResource as exc:
        await _count_failure(connection)
        raise Unauthenticated(
            f"access token refused: {exc.description}",
            code=f"auth.{exc.code}",
            headers=exc.headers,
        ) from exc
    standing = await _standing(connection).check(claims)
    if standing.refusal is not None:
        await _count_failure(connection)
        await _audit_refusal(connection, claims, standing.refusal)
        raise _unauthenticated(standing.refusal, sent=True)
    scopes = frozenset(str(claims.get("scope", "")).split())
    caller = Caller(
        subject=str(claims.get("sub")),
        client_id=claims.get("client_id"),
        scopes=scopes,
        auth_time=claims.get("auth_time"),
        claims=claims,
        session=standing.session,
        credentials_changed_at=standing.credentials_changed_at,
    )
    connection.state.caller = caller
    if permission not in scopes:
        await _audit_denial(connection, caller, permission)
        challenge = f'Bearer realm="idp", error="insufficient_scope", scope="{permission}"'
        raise PermissionDenied(
            f"this route needs the permission {permission}",
            code="auth.insufficient_scope",
            headers={"WWW-Authenticate": challenge},
        )


async def _audit_denial(
    connection: ASGIConnection[Any, Any, Any, Any], caller: Caller, permission: str
) -> None:
    entry = AuditEntry(
        action="access.denied",
        status_code=403,
        ip=caller_ip(connection),
        actor=caller.subject,
        detail={
            "permission": permission,
            "method": connection.scope.get("method"),
            "path": connection.url.path,
            "client_id": caller.client_id,
        },
    )
    await record_refusal(resources_of(connection).sessions, entry)


async def _audit_refusal(
    connection: ASGIConnection[Any, Any, Any, Any], claims: dict[str, Any], reason: str
) -> None:
    """A token that was valid once: who presented it is known, so the refusal is recorded
    (by ``jti``, never the token)."""
    entry = AuditEntry(
        action="access.refused",
        status_code=401,
        ip=caller_ip(connection),
        actor=str(claims.get("sub")),
        detail={
            "reason": reason,
            "jti": claims.get("jti"),
            "client_id": claims.get("client_id"),
            "method": connection.scope.get("method"),
            "path": connection.url.path,
        },
    )
    await record_refusal(resources_of(connection).sessions, entry)


def current_caller(connection: ASGIConnection[Any, Any, Any, Any]) -> Caller:
    caller: Caller = connection.state.caller
    return caller
