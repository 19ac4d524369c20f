"""The bearer-token guard for ``/admin/*`` and ``/entity/*`` (spec §5 and §7).

Validation (spec §5 "Validation rules"): RS256 signature by a published key, ``typ``
``at+jwt`` (RFC 9068), ``iss`` equal to the issuer, ``aud`` equal to the provider's API
audience, not expired. Then the token must still stand (issue 19, attack 12: the
provider's own API must not honour for ten more minutes what was revoked or disabled):

- its ``jti`` is not on the revocation list (:class:`idp_common.state.revocation.RevocationList`,
  asked at every request, one batched ``MGET`` per event-loop turn);
- a person's token (``sub`` a user id, not the client's own id): the person exists and is
  not disabled. Each worker keeps the answer "active" for :data:`STANDING_TTL_SECONDS`,
  and forgets every answer as soon as the ``users`` change stamp moves
  (:mod:`idp_common.state.change_stamp`), which the admin service bumps after disabling or
  deleting a person; the stamp is read with the revocation check. So a disabled or
  deleted person's token is refused on the next request, and within five seconds even if
  the stamp could not be bumped. A worker that cannot read Redis cannot check the
  revocation list either: 503 (fail closed).

DPoP (RFC 9449 §7): a token bound to a key (``cnf.jkt``) is accepted only as
``Authorization: DPoP`` with a ``DPoP`` proof of that key for this method and public URL,
carrying the token's ``ath`` (``idp_common.web.dpop``); as ``Bearer`` it is 401
``invalid_token``, a bad proof 401 ``invalid_dpop_proof``, each with a ``DPoP`` challenge.

Then the one permission the route declares must be among the token's scopes.

- missing, expired, malformed, wrong-audience, badly signed, revoked token, or one of a
  disabled or deleted person: 401 with ``WWW-Authenticate: Bearer`` (RFC 6750 §3,
  ``error="invalid_token"`` when one was sent); a revoked or disabled one is audited
  (``access.refused``);
- valid token without the permission: 403, ``error="insufficient_scope"``, audited.
Failed authentications count against a per-address limit (429 past it). The limit fails
open: with Redis unreachable a bad token is still 401, with a log line.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any, Final

import msgspec
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from redis.exceptions import RedisError

from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, InvalidToken, verify_jwt
from idp_common.errors import PermissionDenied, RateLimited, Unauthenticated
from idp_common.protocol.rfc9449_dpop import DpopRefusedAtResource, dpop_challenge
from idp_common.state.address_limits import AUTH_FAIL
from idp_common.state.change_stamp import StampWatch
from idp_common.state.redis_batch import RedisBatch
from idp_common.state.revocation import RevocationList
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.storage.repos.permissions import person_is_active
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.dpop import check_resource_dpop
from idp_common.web.resources import Resources

log = logging.getLogger("idp.guard")
PERMISSION_OPT = "permission"
SECURITY_SCHEME = "BearerToken"
#: The change stamp bumped after a person is disabled or deleted (admin service).
USERS_STAMP: Final = "users"
#: How long a worker trusts "this person is active" without a stamp change.
STANDING_TTL_SECONDS: Final = 5.0
#: People a worker remembers at most (then it starts again).
_STANDING_CAPACITY: Final = 10_000
_STANDING_STATE: Final = "bearer_standing"
_DPOP_SCHEME: Final = "dpop"
_SCHEMES: Final = frozenset({"bearer", _DPOP_SCHEME})


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


def _bearer_token(connection: ASGIConnection[Any, Any, Any, Any]) -> tuple[str, bool] | None:
    """(the access token, whether it came with the ``DPoP`` scheme, RFC 9449 §7.1)."""
    header = connection.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    scheme = scheme.lower()
    if scheme not in _SCHEMES or not token.strip():
        return None
    return token.strip(), scheme == _DPOP_SCHEME


def person_of(claims: dict[str, Any]) -> uuid.UUID | None:
    """The person a token speaks for: ``sub`` when it is a user id and not the client's
    own id (a client-credentials token, DESIGN.md)."""
    subject = claims.get("sub")
    if not isinstance(subject, str) or subject == claims.get("client_id"):
        return None
    try:
        return uuid.UUID(subject)
    except ValueError:
        return None


class TokenStanding:
    """Whether a validated token still stands (see the module text). One per app."""

    def __init__(self, resources: Resources) -> None:
        prefix = resources.settings.redis_prefix
        self._hot = resources.hot
        self._revocations = RevocationList(resources.redis, prefix)
        self._stamp = StampWatch(RedisBatch(resources.redis), prefix, USERS_STAMP)
        self._active_until: dict[uuid.UUID, float] = {}

    async def refusal(self, claims: dict[str, Any]) -> str | None:
        """Why the token no longer stands (``"revoked"``, ``"subject inactive"``), or None."""
        jti = claims.get("jti")
        if not isinstance(jti, str) or not jti:
            return "without jti"
        person = person_of(claims)
        if person is None:
            return "revoked" if await self._revocations.is_revoked(jti) else None
        revoked, moved = await asyncio.gather(
            self._revocations.is_revoked(jti), self._stamp.changed()
        )
        if revoked:
            return "revoked"
        if moved:
            self._active_until.clear()
        now = time.monotonic()
        if self._active_until.get(person, 0.0) > now:
            return None
        async with self._hot.connection() as conn:
            active = await person_is_active(conn, person)
        if not active:
            return "subject inactive"
        if len(self._active_until) >= _STANDING_CAPACITY:
            self._active_until.clear()
        self._active_until[person] = now + STANDING_TTL_SECONDS
        return None


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
        # and "401" is the truth where a 500 would hide it (issue 19, attack 17).
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
    refusal = await _standing(connection).refusal(claims)
    if refusal is not None:
        await _count_failure(connection)
        await _audit_refusal(connection, claims, refusal)
        raise _unauthenticated(refusal, sent=True)
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
