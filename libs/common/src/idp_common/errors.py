"""Domain error kinds (STYLE.md §6).

Repositories and domain code raise these; each app maps them once, in one exception
handler (:mod:`idp_common.web.problems`), to RFC 9457 problem+json. The ``code`` is a
stable, greppable identifier such as ``admin.client_not_found``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FieldError:
    """One invalid input, named by its field (spec §7: the message names the field)."""

    field: str
    message: str


class DomainError(Exception):
    """Base of every error kind that becomes a problem response."""

    status_code = 500
    title = "Internal Server Error"

    def __init__(self, detail: str, *, code: str = "error", headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.detail = detail
        self.code = code
        self.headers = headers or {}


class InvalidArgument(DomainError):
    status_code = 422
    title = "Unprocessable Content"

    def __init__(
        self, detail: str, *, code: str = "invalid_argument", errors: Sequence[FieldError] = ()
    ) -> None:
        super().__init__(detail, code=code)
        self.errors = list(errors)


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
    """The request collides with what is stored (a taken name, a protected record);
    ``errors`` names the field when one is to blame."""

    status_code = 409
    title = "Conflict"

    def __init__(
        self, detail: str, *, code: str = "conflict", errors: Sequence[FieldError] = ()
    ) -> None:
        super().__init__(detail, code=code)
        self.errors = list(errors)


class PreconditionFailed(DomainError):
    status_code = 412
    title = "Precondition Failed"


class RateLimited(DomainError):
    status_code = 429
    title = "Too Many Requests"

    def __init__(self, detail: str, *, retry_after: int, code: str = "rate_limited") -> None:
        super().__init__(detail, code=code, headers={"Retry-After": str(max(1, retry_after))})
        self.retry_after = retry_after


class ServiceUnavailable(DomainError):
    status_code = 503
    title = "Service Unavailable"
