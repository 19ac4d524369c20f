"""One error mapping for the ``/oauth2/*`` endpoints (docs/style.md §6).

Every failure becomes the RFC 6749 §5.2 error object as ``application/json`` with
``Cache-Control: no-store`` and ``Pragma: no-cache`` (§5.1, §5.2), plus the error's own
headers (``WWW-Authenticate``, ``Retry-After``). Litestar's own HTTP errors (a body too
large, ...) keep their status as ``invalid_request``; a failed dependency (PostgreSQL or
Redis down, full or restarting) is 503 ``temporarily_unavailable`` with ``Retry-After``;
anything else unexpected is logged with its stack and answered ``server_error`` without
detail. Controllers set ``exception_handlers = OAUTH_EXCEPTION_HANDLERS``; the form-posted
endpoints (token, introspection, revocation) extend :class:`OAuthController` and declare
their route with :func:`oauth_post`.
"""

from __future__ import annotations

import logging
from typing import Any, Final

import msgspec
from litestar import Controller, Request, Response, post
from litestar.exceptions import HTTPException
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.spec import Operation
from litestar.types import ExceptionHandlersMap

from idp_common.protocol.rfc6749_errors import (
    InvalidRequest,
    OAuth2Error,
    ServerError,
    TemporarilyUnavailable,
)
from idp_common.web.dependency_errors import (
    RETRY_AFTER_SECONDS,
    is_dependency_failure,
    log_failure,
)

log = logging.getLogger("idp.oauth2")

JSON: Final = "application/json"
#: RFC 6749 §5.1: responses carrying tokens (and their errors) must not be cached.
NO_STORE: Final = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def json_response(body: Any, status_code: int = 200) -> Response[bytes]:
    """``body`` encoded with msgspec, ``no-store``."""
    return Response(
        content=msgspec.json.encode(body),
        status_code=status_code,
        media_type=JSON,
        headers=dict(NO_STORE),
    )


def oauth_error_response(exc: OAuth2Error) -> Response[bytes]:
    return Response(
        content=msgspec.json.encode(exc.to_body()),
        status_code=exc.status_code,
        media_type=JSON,
        headers={**NO_STORE, **exc.headers},
    )


def _oauth_error(_: Request[Any, Any, Any], exc: OAuth2Error) -> Response[bytes]:
    return oauth_error_response(exc)


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    if exc.status_code >= 500:
        return _unexpected(request, exc)
    error = InvalidRequest(str(exc.detail))
    response = oauth_error_response(error)
    response.status_code = exc.status_code
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


def dependency_unavailable() -> TemporarilyUnavailable:
    """RFC 6749 §5.2 ``temporarily_unavailable``, 503, ``Retry-After``."""
    error = TemporarilyUnavailable("a service this request needs is unavailable; retry shortly")
    error.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return error


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log_failure(log, request.method, request.url.path, exc)
    if is_dependency_failure(exc):
        return oauth_error_response(dependency_unavailable())
    return oauth_error_response(ServerError())


OAUTH_EXCEPTION_HANDLERS: Final[ExceptionHandlersMap] = {
    OAuth2Error: _oauth_error,
    HTTPException: _http_error,
    Exception: _unexpected,
}


class OAuthController(Controller):
    """A form-posted ``/oauth2/*`` endpoint, answering errors as RFC 6749 §5.2."""

    tags = ["oauth2"]
    exception_handlers = OAUTH_EXCEPTION_HANDLERS


def oauth_post(
    path: str, operation_id: str, summary: str, operation_class: type[Operation]
) -> HTTPRouteHandler:
    """The route of a form-posted endpoint: ``POST path``, 200 on success;
    ``operation_class`` describes its form and answers (``token_service.openapi_doc``)."""
    return post(
        path,
        operation_id=operation_id,
        summary=summary,
        status_code=200,
        operation_class=operation_class,
    )
