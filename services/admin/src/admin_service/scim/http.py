"""What every SCIM route shares: the ``application/scim+json`` response, the one error
mapping of ``/scim/v2`` (every failure a SCIM error body, RFC 7644 §3.12), ETags and the
query parameters of a list.

Errors raised by the admin API's own code (``DomainError``: a taken email, an unknown
member, a refused credential change, the bearer guard's 401/403) become SCIM errors with
the same status; their field is named by its SCIM attribute. 422 becomes 400
``invalidValue``, a 409 ``uniqueness``. A value the database cannot store (text holding
NUL, an integer or a moment out of range: :mod:`idp_common.web.unstorable`) is 400
``invalidValue`` naming where the request (or a Bulk operation's ``data``) holds it.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.types import ExceptionHandlersMap, Scope

from admin_service.scim.rfc7643_schema import SCHEMA_PROFILE_EXTENSION
from admin_service.scim.rfc7644_errors import ScimError
from idp_common.errors import Conflict, DomainError, FieldError, InvalidArgument
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.dependency_errors import RETRY_AFTER_SECONDS, is_dependency_failure, log_failure
from idp_common.web.unstorable import refusal_of, unstorable_fields, unstorable_members

SCIM_JSON: Final = "application/scim+json"
PREFIX: Final = "/scim/v2"
Req = Request[Any, Any, Any]
log = logging.getLogger("idp.scim")

#: Fields the admin API's errors name, as SCIM attributes.
_ATTRIBUTES: Final = {
    "email": "emails",
    "username": "userName",
    "name": "displayName",
    "display_name": "displayName",
    "members": "members",
}


def base_url(request: Req) -> str:
    return resources_of(request).settings.issuer_base + PREFIX


def scim_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response[Any]:
    return Response(body, status_code=status, media_type=SCIM_JSON, headers=headers)


def _attribute(field: str) -> str:
    root = field.split("[", 1)[0]
    if root in _ATTRIBUTES:
        return field.replace(root, _ATTRIBUTES[root], 1)
    return f"{SCHEMA_PROFILE_EXTENSION}:{field}"  # a profile field's key


def scim_error_of(exc: DomainError) -> ScimError:
    """The SCIM error of an admin-API error (see the module text)."""
    fields = [_attribute(e.field) for e in exc.errors]
    named = ", ".join(fields)
    if isinstance(exc, Conflict):
        detail = f"{named}: {exc.errors[0].message}" if exc.errors else exc.detail
        return ScimError(409, detail, "uniqueness")
    if isinstance(exc, InvalidArgument):
        messages = "; ".join(f"{_attribute(e.field)}: {e.message}" for e in exc.errors)
        return ScimError(400, messages or exc.detail, "invalidValue")
    if exc.status_code == 400:  # a body no one can read (idp_common.web.json_body)
        return ScimError(400, exc.detail, "invalidSyntax")
    return ScimError(exc.status_code, exc.detail)


def _invalid_values(errors: list[FieldError]) -> ScimError:
    return ScimError(400, "; ".join(f"{e.field}: {e.message}" for e in errors), "invalidValue")


def unstorable_in(exc: BaseException, value: Any) -> ScimError | None:
    """400 ``invalidValue`` when ``exc`` is the database refusing a value that ``value``
    (a Bulk operation's ``data``) holds, naming where; else None."""
    refusal = refusal_of(exc)
    if refusal is None:
        return None
    members = unstorable_members(value, refusal)
    return _invalid_values([FieldError(m, refusal.message) for m in members]) if members else None


def error_response(error: ScimError, headers: dict[str, str] | None = None) -> Response[Any]:
    return scim_response(error.to_scim(), error.status, headers)


def _scim_error(_: Req, exc: ScimError) -> Response[Any]:
    return error_response(exc)


def _domain_error(_: Req, exc: DomainError) -> Response[Any]:
    return error_response(scim_error_of(exc), exc.headers or None)


def _validation_error(_: Req, exc: ValidationException) -> Response[Any]:
    return error_response(ScimError(400, f"invalid request: {exc.detail}", "invalidSyntax"))


def _http_error(request: Req, exc: HTTPException) -> Response[Any]:
    if exc.status_code >= 500:
        return _unexpected(request, exc)
    return error_response(ScimError(exc.status_code, str(exc.detail)), exc.headers or None)


def _unexpected(request: Req, exc: Exception) -> Response[Any]:
    if unstorable := unstorable_fields(request, exc):
        log.info("refused a value the database cannot store on %s", request.url.path)
        return error_response(_invalid_values(unstorable))
    log_failure(log, request.method, request.url.path, exc)
    if is_dependency_failure(exc):
        unavailable = ScimError(
            503, "A service this request needs is unavailable; try again shortly."
        )
        return error_response(unavailable, {"Retry-After": str(RETRY_AFTER_SECONDS)})
    return error_response(ScimError(500, "The server failed to handle the request."))


def exception_handlers() -> ExceptionHandlersMap:
    return {
        ScimError: _scim_error,
        DomainError: _domain_error,
        ValidationException: _validation_error,
        HTTPException: _http_error,
        Exception: _unexpected,
    }


async def audit_refused_scim_write(exc: Exception, scope: Scope) -> None:
    """``after_exception`` hook beside the admin API's: a refused SCIM write (a
    :class:`ScimError`, which the admin API's hook does not know) is recorded with the
    status the caller gets, in a transaction of its own."""
    if not isinstance(exc, ScimError) or scope.get("method") not in (
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
    ):
        return
    if exc.status in (401, 403) or exc.status >= 500:
        return
    request: Req = Request(scope)
    caller = getattr(request.state, "caller", None)
    if caller is None:
        return
    params = scope.get("path_params") or {}
    entry = AuditEntry(
        action=f"{scope.get('method')} {scope.get('path_template') or scope.get('path')}",
        status_code=exc.status,
        ip=caller_ip(request),
        actor=caller.subject,
        target=next((str(v) for v in params.values()), None),
        detail={"scimType": exc.scim_type},
    )
    await record_refusal(resources_of(request).sessions, entry)


# --- ETags (RFC 7644 §3.14) ----------------------------------------------------------------


def _tags(header: str) -> list[str]:
    return [t.strip() for t in header.split(",") if t.strip()]


def _weakly(tag: str) -> str:
    return tag.removeprefix("W/")


def check_if_match(header: str | None, version: str) -> None:
    """412 ``preconditionFailed`` unless ``If-Match`` (when sent; a Bulk operation's
    ``version``) names ``version``."""
    if header is None:
        return
    tags = _tags(header)
    if "*" in tags or _weakly(version) in {_weakly(t) for t in tags}:
        return
    raise ScimError(412, "If-Match: the resource has changed (its version is another)")


def not_modified(request: Req, version: str) -> bool:
    """``If-None-Match`` names ``version``: a GET answers 304."""
    header = request.headers.get("if-none-match")
    if header is None:
        return False
    tags = _tags(header)
    return "*" in tags or _weakly(version) in {_weakly(t) for t in tags}
