"""Every write of the admin and self-service APIs leaves one audit row (docs/design.md "Admin
and entity APIs").

- A write that succeeds calls :func:`audit` inside its own transaction, so the row and the
  change commit or roll back together. ``action`` is ``<resource>.<verb>`` (for example
  ``client.rotate_secret``), ``target`` the id of what changed.
- A write that fails (404, 409, 422, ...) changes nothing; :func:`audit_refused_write`,
  the app's ``after_exception`` hook, records it in a transaction of its own with the
  status the caller gets and the route it tried (``action`` ``"PATCH /admin/users/{user_id}"``).
  A missing or bad token (401) has no actor and is not recorded here; a missing
  permission (403) is recorded by the guard.

Rows carry identifiers and field names only: never a password, secret or token.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.exceptions import HTTPException, ValidationException
from litestar.types import Scope
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import Conflict, DomainError, InvalidArgument
from idp_common.storage.repos.audit import AuditEntry, record_refusal, write_audit
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.guard import current_caller

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def audit(
    request: Request[Any, Any, Any],
    session: AsyncSession,
    *,
    action: str,
    target_type: str,
    target: str,
    status_code: int = 200,
    detail: dict[str, Any] | None = None,
) -> None:
    """Add the row of a successful write to the open transaction of ``session``."""
    write_audit(
        session,
        AuditEntry(
            action=action,
            status_code=status_code,
            ip=caller_ip(request),
            actor=current_caller(request).subject,
            target_type=target_type,
            target=target,
            detail=detail or {},
        ),
    )


def _status_of(exc: Exception) -> int | None:
    if isinstance(exc, DomainError):
        return exc.status_code
    if isinstance(exc, ValidationException):
        return 422  # as the problem mapping answers it
    if isinstance(exc, HTTPException):
        return exc.status_code
    return None


async def audit_refused_write(exc: Exception, scope: Scope) -> None:
    """``after_exception`` hook: record a refused write (see the module text)."""
    if scope.get("method") not in WRITE_METHODS:
        return
    status = _status_of(exc)
    if status is None or status in (401, 403) or status >= 500:
        return
    request: Request[Any, Any, Any] = Request(scope)
    caller = getattr(request.state, "caller", None)
    if caller is None:
        return
    detail: dict[str, Any] = {"code": getattr(exc, "code", None)}
    if isinstance(exc, InvalidArgument | Conflict):
        detail["fields"] = [e.field for e in exc.errors]
    params = scope.get("path_params") or {}
    target = next((str(v) for v in params.values()), None)
    entry = AuditEntry(
        action=f"{scope.get('method')} {scope.get('path_template') or scope.get('path')}",
        status_code=status,
        ip=caller_ip(request),
        actor=caller.subject,
        target=target,
        detail=detail,
    )
    await record_refusal(resources_of(request).sessions, entry)
