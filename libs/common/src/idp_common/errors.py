"""Domain error kinds (docs/style.md §6).

Repositories and domain code raise these; each app maps them once, in one exception
handler (:mod:`idp_common.web.problems`), to RFC 9457 problem+json. The ``code`` is a
stable, greppable identifier such as ``admin.client_not_found``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FieldError:
    """One invalid input, named by its field (contract §7: the message names the field)."""

    field: str
    message: str


class DomainError(Exception):
    """Base of every error kind that becomes a problem response; ``errors`` names the
    fields to blame, when some are."""

    status_code = 500
    title = "Internal Server Error"
    default_code = "error"

    def __init__(
        self,
        detail: str,
        *,
        code: str | None = None,
        headers: dict[str, str] | None = None,
        errors: Sequence[FieldError] = (),
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code or self.default_code
        self.headers = headers or {}
        self.errors = list(errors)


class InvalidArgument(DomainError):
    status_code = 422
    title = "Unprocessable Content"
    default_code = "invalid_argument"


class InvalidField(InvalidArgument):
    """A well-formed request whose field names something the provider cannot do (a
    signing algorithm outside the supported ones, or one it holds no key for): 400, the
    field named in ``errors`` and in ``detail``."""

    status_code = 400
    title = "Bad Request"
    default_code = "invalid_field"


class Unauthenticated(DomainError):
    status_code = 401
    title = "Unauthorized"


class PermissionDenied(DomainError):
    status_code = 403
    title = "Forbidden"


class NotFound(DomainError):
    status_code = 404
    title = "Not Found"


class Conflict(DomainError):
    """The request collides with what is stored (a taken name, a protected record)."""

    status_code = 409
    title = "Conflict"
    default_code = "conflict"


class ContentTooLarge(DomainError):
    """RFC 9110 §15.5.14."""

    status_code = 413
    title = "Content Too Large"


class UnsupportedMediaType(DomainError):
    status_code = 415
    title = "Unsupported Media Type"


class RateLimited(DomainError):
    status_code = 429
    title = "Too Many Requests"
    default_code = "rate_limited"

    def __init__(self, detail: str, *, retry_after: int, code: str | None = None) -> None:
        super().__init__(detail, code=code, headers={"Retry-After": str(max(1, retry_after))})
        self.retry_after = retry_after


class ServiceUnavailable(DomainError):
    status_code = 503
    title = "Service Unavailable"
