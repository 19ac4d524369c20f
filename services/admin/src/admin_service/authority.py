"""What an administrator may do beyond the route's one permission (docs/security.md,
attacks 2 and 8; docs/admin-api.md "Granting and credentials").

- **Granting.** A write that gives scopes (to a person, a role, a group's members, a
  client) may give only scopes the caller holds itself
  (:func:`admin_service.protocol.grant_authority.scopes_not_held`): a person's effective
  scopes, or a machine client's own scopes. Refused: 403 ``admin.scope_not_held`` naming
  the scopes. Taking over what a client can do (its secret, its redirect URIs, its grant
  types) counts as being given its scopes.
- **Taking away.** Taking members out of a group (removing one, a replaced member list
  that leaves some out, deleting a group that has members) takes the scopes of the
  group's roles from them: it needs what adding them needs, a recent sign-in and a caller
  holding those scopes, so nobody demotes a stronger administrator.
- **Recent sign-in.** Sensitive writes (grants, credential changes, a client's secret)
  need a person signed in within ``SVC_RECENT_SIGN_IN_MAX_AGE`` seconds with the password,
  a one-time code or a passkey (RFC 9470 step-up,
  :func:`idp_common.web.recent_auth.check_recent_sign_in`).
  A machine client has no sign-in: its token comes from its secret, so it passes this one.
- **Another administrator's credentials** (password, authenticator, face, passkeys,
  email, disabling or enabling again, deleting) need a sign-in with two factors, and the
  caller must hold every administration scope that person holds: nobody takes over a
  stronger account, nor hands a disabled one back. A machine client cannot show two
  factors and is refused.

Every refusal is audited (``access.denied``, with the ``code`` and the scopes), in a
transaction of its own since the write's own transaction rolls back.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from sqlalchemy.ext.asyncio import AsyncSession

from admin_service.protocol.grant_authority import admin_scopes_of, scopes_not_held
from admin_service.repos.groups import group_scope_values
from idp_common.errors import PermissionDenied
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.storage.repos.clients import client_scope_values
from idp_common.storage.repos.users import effective_scopes
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.guard import Caller, current_caller, requires
from idp_common.web.recent_auth import check_recent_sign_in

Connection = ASGIConnection[Any, Any, Any, Any]

__all__ = [
    "caller_holds",
    "check_credential_change",
    "check_may_give",
    "check_may_take",
    "check_may_take_over_client",
    "check_recent_secret",
    "requires_sensitive",
]


def is_machine(caller: Caller) -> bool:
    """A client-credentials token: the client is its own subject (docs/design.md)."""
    return caller.client_id is not None and caller.subject == caller.client_id


def person_of(caller: Caller) -> uuid.UUID | None:
    if is_machine(caller):
        return None
    try:
        return uuid.UUID(caller.subject)
    except ValueError:
        return None


async def held_scopes(session: AsyncSession, caller: Caller) -> frozenset[str]:
    """What the caller holds now: a machine client's scopes, a person's effective scopes
    (nothing for a subject that is neither)."""
    if is_machine(caller) and caller.client_id is not None:
        return await client_scope_values(session, caller.client_id)
    person = person_of(caller)
    if person is None:
        return frozenset()
    return frozenset(await effective_scopes(session, person))


async def _refuse(
    connection: Connection,
    error: PermissionDenied,
    *,
    target: str | None = None,
    scopes: Iterable[str] = (),
) -> PermissionDenied:
    """Audit the refusal (its own transaction) and hand back the error to raise."""
    caller = current_caller(connection)
    detail: dict[str, Any] = {
        "code": error.code,
        "method": connection.scope.get("method"),
        "path": connection.url.path,
        "client_id": caller.client_id,
    }
    if scopes:
        detail["scopes"] = sorted(scopes)
    entry = AuditEntry(
        action="access.denied",
        status_code=403,
        ip=caller_ip(connection),
        actor=caller.subject,
        target=target,
        detail=detail,
    )
    await record_refusal(resources_of(connection).sessions, entry)
    return error


def _not_held(refused: list[str], what: str) -> PermissionDenied:
    return PermissionDenied(
        f"{what} only what you hold yourself; you do not hold: {', '.join(refused)}",
        code="admin.scope_not_held",
    )


async def caller_holds(connection: Connection, session: AsyncSession) -> frozenset[str]:
    """What the caller holds, read before a grant write changes it (a caller may be among
    those the write gives to)."""
    return await held_scopes(session, current_caller(connection))


async def check_may_give(
    connection: Connection, held: frozenset[str], given: Iterable[str], *, target: str
) -> None:
    """403 ``admin.scope_not_held`` unless ``held`` (:func:`caller_holds`, before the
    write) has every scope in ``given`` (the scopes this write adds; see the module)."""
    wanted = list(given)
    if not wanted:
        return
    refused = scopes_not_held(wanted, held)
    if refused:
        raise await _refuse(
            connection, _not_held(refused, "you can give"), target=target, scopes=refused
        )


async def check_may_take(
    connection: Connection, session: AsyncSession, held: frozenset[str], group_id: uuid.UUID
) -> None:
    """Members left the group ``group_id`` in this write (see the module): unless its roles
    give no scope, a recent sign-in (403 step-up challenge) and ``held``
    (:func:`caller_holds`, before the write) holding every scope they give (403
    ``admin.scope_not_held``). Call it while the group's roles are still linked."""
    taken = await group_scope_values(session, group_id)
    if not taken:
        return
    await check_recent_secret(connection)
    refused = scopes_not_held(taken, held)
    if refused:
        error = _not_held(refused, "you can take away")
        raise await _refuse(connection, error, target=str(group_id), scopes=refused)


async def check_may_take_over_client(
    connection: Connection, session: AsyncSession, client_id: str
) -> None:
    """A new secret, redirect URI or grant type lets its author act as the client: refused
    unless the caller holds every scope the client has."""
    scopes = await client_scope_values(session, client_id)
    refused = scopes_not_held(scopes, await held_scopes(session, current_caller(connection)))
    if refused:
        error = _not_held(refused, "you can take control of a client that holds")
        raise await _refuse(connection, error, target=client_id, scopes=refused)


async def check_recent_secret(connection: Connection) -> None:
    """A person signed in recently with the password or a one-time code (403 step-up
    challenge, audited); a machine client passes (see the module text)."""
    caller = current_caller(connection)
    if is_machine(caller):
        return
    max_age = resources_of(connection).settings.recent_sign_in_max_age
    try:
        check_recent_sign_in(caller, now=time.time(), max_age=max_age)
    except PermissionDenied as error:
        raise await _refuse(connection, error) from None


async def _recent_secret_guard(connection: Connection, _: BaseRouteHandler) -> None:
    await check_recent_secret(connection)


def requires_sensitive(permission: str) -> dict[str, Any]:
    """Route-decorator arguments: ``permission`` (as ``requires``), then a recent sign-in
    with a secret, both before the body is read."""
    spec = requires(permission)
    return {**spec, "guards": [*spec["guards"], _recent_secret_guard]}


async def check_credential_change(
    connection: Connection, session: AsyncSession, target: uuid.UUID
) -> None:
    """Changing the credentials of ``target`` (run after :func:`check_recent_secret`):
    another administrator needs a two-factor sign-in and a caller holding all of their
    administration scopes."""
    caller = current_caller(connection)
    if person_of(caller) == target:
        return
    theirs = admin_scopes_of(await effective_scopes(session, target))
    if not theirs:
        return
    if is_machine(caller):
        machine = PermissionDenied(
            "changing an administrator's credentials needs a person signed in with two "
            "factors; a client's token cannot",
            code="admin.two_factors_required",
        )
        raise await _refuse(connection, machine, target=str(target))
    max_age = resources_of(connection).settings.recent_sign_in_max_age
    try:
        check_recent_sign_in(caller, now=time.time(), max_age=max_age, two_factors=True)
    except PermissionDenied as error:
        raise await _refuse(connection, error, target=str(target)) from None
    refused = scopes_not_held(theirs, await held_scopes(session, caller))
    if refused:
        weaker = _not_held(refused, "you can change the credentials of a person holding")
        raise await _refuse(connection, weaker, target=str(target), scopes=refused)
