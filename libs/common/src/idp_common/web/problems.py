"""One error mapping per app: every failure becomes RFC 9457 ``application/problem+json``.

Body: ``{type, title, status, detail, instance, code, errors?}`` where ``errors`` is a
list of ``{field, message}`` (docs/design.md "Admin and entity APIs"). Validation failures are
422 and name the field. An unexpected exception is logged with its stack and answered
with a bare 500: debug detail never reaches a body. A failed dependency (PostgreSQL or
Redis unreachable, full or restarting: :mod:`idp_common.web.dependency_errors`) is not a
bug: it is answered 503 ``dependency_unavailable`` with ``Retry-After`` and logged
without its stack. Nor is a value the database cannot store (text holding NUL, an
integer or a moment out of range: :mod:`idp_common.web.unstorable`) that the request
sent: it is answered 422 ``validation_failed`` naming where the request holds it.
"""

from __future__ import annotations

import logging
import re
from http import HTTPStatus
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.types import ExceptionHandlersMap

from idp_common.errors import DomainError, FieldError
from idp_common.web.dependency_errors import (
    RETRY_AFTER_SECONDS,
    is_dependency_failure,
    log_failure,
)
from idp_common.web.unstorable import unstorable_fields

PROBLEM_JSON = "application/problem+json"
#: msgspec names the member in the message when an object lacks one or has a stranger.
_NAMED_MEMBER = re.compile(r"(?:unknown|missing required) field `([^`]+)`")
log = logging.getLogger("idp.errors")


def problem_response(
    request: Request[Any, Any, Any],
    *,
    status: int,
    detail: str,
    code: str,
    errors: list[FieldError] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[dict[str, Any]]:
    body: dict[str, Any] = {
        "type": f"urn:idp:problem:{code}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "instance": request.url.path,
        "code": code,
    }
    if errors:
        body["errors"] = [{"field": e.field, "message": e.message} for e in errors]
    return Response(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _domain_error(request: Request[Any, Any, Any], exc: DomainError) -> Response[dict[str, Any]]:
    return problem_response(
        request,
        status=exc.status_code,
        detail=exc.detail,
        code=exc.code,
        errors=exc.errors,
        headers=exc.headers,
    )


def invalid_values(
    request: Request[Any, Any, Any], errors: list[FieldError]
) -> Response[dict[str, Any]]:
    """422 ``validation_failed`` naming each field of ``errors``."""
    names = ", ".join(e.field for e in errors)
    return problem_response(
        request,
        status=422,
        detail=f"invalid value for: {names}",
        code="validation_failed",
        errors=errors,
    )


def _validation_error(
    request: Request[Any, Any, Any], exc: ValidationException
) -> Response[dict[str, Any]]:
    errors = []
    for item in exc.extra if isinstance(exc.extra, list) else []:
        if isinstance(item, dict):
            field = str(item.get("key") or item.get("source") or "body")
            message = str(item.get("message", ""))
            if named := _NAMED_MEMBER.search(message):  # name the member, not the body
                field = named.group(1) if field in ("data", "body") else f"{field}.{named[1]}"
            errors.append(FieldError(field=field, message=str(item.get("message", "invalid"))))
    names = ", ".join(e.field for e in errors) or "request"
    return problem_response(
        request,
        status=422,
        detail=f"invalid value for: {names}",
        code="validation_failed",
        errors=errors or [FieldError("body", str(exc.detail))],
    )


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[dict[str, Any]]:
    status = exc.status_code
    if status >= 500:
        return _unexpected(request, exc)
    code = HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
    return problem_response(
        request,
        status=status,
        detail=str(exc.detail),
        code=code,
        headers=exc.headers,
    )


def dependency_unavailable(request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
    return problem_response(
        request,
        status=503,
        detail="A service this request needs is unavailable; try again shortly.",
        code="dependency_unavailable",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    if unstorable := unstorable_fields(request, exc):
        log.info("refused a value the database cannot store on %s", request.url.path)
        return invalid_values(request, unstorable)
    log_failure(log, request.method, request.url.path, exc)
    if is_dependency_failure(exc):
        return dependency_unavailable(request)
    return problem_response(
        request,
        status=500,
        detail="The server failed to handle the request.",
        code="internal_error",
    )


def exception_handlers() -> ExceptionHandlersMap:
    return {
        DomainError: _domain_error,
        ValidationException: _validation_error,
        HTTPException: _http_error,
        Exception: _unexpected,
    }
