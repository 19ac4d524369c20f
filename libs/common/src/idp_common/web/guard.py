"""The bearer-token guard for ``/admin/*`` and ``/entity/*`` (spec §5 and §7).

Offline validation (spec §5 "Validation rules"): RS256 signature by a published key,
``typ`` ``at+jwt`` (RFC 9068), ``iss`` equal to the issuer, ``aud`` equal to the
provider's API audience, not expired. Then the one permission the route declares must
be among the token's scopes.

- missing, expired, malformed, wrong-audience or badly signed token: 401 with
  ``WWW-Authenticate: Bearer`` (RFC 6750 §3, ``error="invalid_token"`` when one was sent);
- valid token without the permission: 403, ``error="insufficient_scope"``, audited.
Failed authentications count against a per-address limit (429 past it). The limit fails
open: with Redis unreachable a bad token is still 401, with a log line.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import msgspec
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from redis.exceptions import RedisError

from idp_common.audit import AuditEntry, record_audit
from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, InvalidToken, verify_jwt
from idp_common.errors import PermissionDenied, RateLimited, Unauthenticated
from idp_common.web.caller import caller_ip, resources_of

log = logging.getLogger("idp.guard")
PERMISSION_OPT = "permission"
SECURITY_SCHEME = "BearerToken"


class Caller(msgspec.Struct, frozen=True):
    """Who called, as the validated access token says."""

    subject: str
    client_id: str | None
    scopes: frozenset[str]
    auth_time: int | None
    claims: dict[str, Any]


def requires(permission: str) -> dict[str, Any]:
    """Route-decorator arguments declaring the route's one permission, also in OpenAPI."""
    return {
        "guards": [bearer_guard],
        "opt": {PERMISSION_OPT: permission},
        "security": [{SECURITY_SCHEME: [permission]}],
    }


def _bearer_token(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    header = connection.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


async def _refuse(connection: ASGIConnection[Any, Any, Any, Any], reason: str, sent: bool) -> None:
    resources = resources_of(connection)
    try:
        result = await resources.limiter.hit(
            "auth_fail",
            caller_ip(connection),
            limit=resources.settings.auth_fail_per_ip,
            window_seconds=60,
        )
    except (RedisError, OSError) as exc:
        # Fail open: without Redis the count cannot be kept, but the token is still bad,
        # and "401" is the truth where a 500 would hide it (issue 19, attack 17).
        log.warning("failed-authentication limit not applied (%s)", type(exc).__name__)
    else:
        if not result.allowed:
            raise RateLimited("too many failed authentications", retry_after=result.retry_after)
    challenge = 'Bearer realm="idp"'
    if sent:
        challenge += f', error="invalid_token", error_description="{reason}"'
    raise Unauthenticated(
        f"access token {reason}" if sent else "bearer access token required",
        code="auth.invalid_token" if sent else "auth.missing_token",
        headers={"WWW-Authenticate": challenge},
    )


async def bearer_guard(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    permission: str = handler.opt[PERMISSION_OPT]
    resources = resources_of(connection)
    token = _bearer_token(connection)
    if token is None:
        await _refuse(connection, "missing", sent=False)
        return
    try:
        claims = verify_jwt(
            token,
            resources.keys,
            issuer=resources.settings.issuer,
            audience=resources.settings.api_audience,
            now=int(time.time()),
            typ=TYP_ACCESS_TOKEN,
        )
    except InvalidToken as exc:
        await _refuse(connection, exc.reason, sent=True)
        return
    scopes = frozenset(str(claims.get("scope", "")).split())
    caller = Caller(
        subject=str(claims.get("sub")),
        client_id=claims.get("client_id"),
        scopes=scopes,
        auth_time=claims.get("auth_time"),
        claims=claims,
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
    try:
        await record_audit(resources_of(connection).sessions, entry)
    except Exception as exc:  # the refusal stands even if the audit store is down
        log.error("audit write failed for access.denied (%s)", type(exc).__name__)


def current_caller(connection: ASGIConnection[Any, Any, Any, Any]) -> Caller:
    caller: Caller = connection.state.caller
    return caller
