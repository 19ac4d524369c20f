"""OAuth 2.0 error responses (RFC 6749 §5.2, §4.1.2.1; RFC 6750 §3.1; OIDC Core §3.1.2.6).

Each error code is its own class with ``error`` and ``status_code`` (docs/style.md §6). A
protocol endpoint answers ``to_body()`` as JSON with ``headers`` added; ``/oauth2/authorize``
sends ``error`` and ``description`` to the client's redirect URI instead (§4.1.2.1):

- ``InvalidClient`` raised for a client that tried HTTP Basic carries
  ``WWW-Authenticate: Basic realm="idp"`` (RFC 6749 §5.2: 401 and the scheme it used).
- ``InvalidToken`` and ``InsufficientScope`` carry a ``Bearer`` challenge (RFC 6750 §3).
- ``TooManyRequests`` is the per-address limit on the token endpoint: HTTP 429 with
  ``Retry-After`` and the registered code ``temporarily_unavailable`` (docs/decisions.md).

``error_description`` is limited to the characters RFC 6749 §5.2 allows
(%x20-21 / %x23-5B / %x5D-7E); anything else is replaced by ``?``, so a description built
from input can never break the JSON consumer or a header.
"""

from __future__ import annotations

import re
from typing import ClassVar, Final

__all__ = [
    "ConsentRequired",
    "InsufficientScope",
    "InvalidClient",
    "InvalidGrant",
    "InvalidRequest",
    "InvalidScope",
    "InvalidToken",
    "LoginRequired",
    "OAuth2Error",
    "RequestNotSupported",
    "ServerError",
    "TemporarilyUnavailable",
    "TooManyRequests",
    "UnauthorizedClient",
    "UnsupportedGrantType",
    "UnsupportedResponseType",
    "safe_description",
]

_OUTSIDE_CHARSET: Final = re.compile(r"[^\x20\x21\x23-\x5B\x5D-\x7E]")
_MAX_DESCRIPTION: Final = 300
REALM: Final = "idp"


def safe_description(text: str) -> str:
    """``text`` reduced to the RFC 6749 §5.2 ``error_description`` character set."""
    return _OUTSIDE_CHARSET.sub("?", text)[:_MAX_DESCRIPTION]


class OAuth2Error(Exception):
    """Base of every OAuth error. ``description`` is optional and human readable."""

    error: ClassVar[str] = "server_error"
    status_code: ClassVar[int] = 400

    def __init__(self, description: str | None = None) -> None:
        self.description = safe_description(description) if description else None
        super().__init__(self.description or self.error)
        self.headers: dict[str, str] = {}

    def to_body(self) -> dict[str, str]:
        """The RFC 6749 §5.2 error object."""
        body = {"error": self.error}
        if self.description:
            body["error_description"] = self.description
        return body


class InvalidRequest(OAuth2Error):
    error = "invalid_request"


class InvalidClient(OAuth2Error):
    """RFC 6749 §5.2: 401; ``WWW-Authenticate`` when the client used HTTP Basic."""

    error = "invalid_client"
    status_code = 401

    def __init__(self, description: str | None = None, *, basic: bool = False) -> None:
        super().__init__(description)
        self.basic = basic
        if basic:
            self.headers["WWW-Authenticate"] = f'Basic realm="{REALM}"'


class InvalidGrant(OAuth2Error):
    error = "invalid_grant"


class UnauthorizedClient(OAuth2Error):
    error = "unauthorized_client"


class UnsupportedGrantType(OAuth2Error):
    error = "unsupported_grant_type"


class UnsupportedResponseType(OAuth2Error):
    """RFC 6749 §4.1.2.1 (redirected to the client)."""

    error = "unsupported_response_type"


class InvalidScope(OAuth2Error):
    error = "invalid_scope"


class LoginRequired(OAuth2Error):
    """OIDC Core §3.1.2.6."""

    error = "login_required"


class ConsentRequired(OAuth2Error):
    error = "consent_required"


class RequestNotSupported(OAuth2Error):
    """OIDC Core §3.1.2.6: ``request`` and ``request_uri`` are refused."""

    error = "request_not_supported"


class ServerError(OAuth2Error):
    error = "server_error"
    status_code = 500


class TemporarilyUnavailable(OAuth2Error):
    error = "temporarily_unavailable"
    status_code = 503


class TooManyRequests(TemporarilyUnavailable):
    """Spec part 8 ``TOKEN_PER_IP`` exceeded: 429 + ``Retry-After``."""

    status_code = 429

    def __init__(self, retry_after: int, description: str | None = None) -> None:
        super().__init__(description or "too many requests from this address, retry later")
        self.retry_after = max(1, retry_after)
        self.headers["Retry-After"] = str(self.retry_after)


def _bearer_challenge(error: str, description: str | None, scope: str | None) -> str:
    parts = [f'realm="{REALM}"', f'error="{error}"']
    if description:
        parts.append(f'error_description="{description}"')
    if scope:
        parts.append(f'scope="{scope}"')
    return "Bearer " + ", ".join(parts)


class InvalidToken(OAuth2Error):
    """RFC 6750 §3.1: 401 with a ``Bearer`` challenge."""

    error = "invalid_token"
    status_code = 401

    def __init__(self, description: str | None = None) -> None:
        super().__init__(description)
        self.headers["WWW-Authenticate"] = _bearer_challenge(
            self.error, self.description, scope=None
        )


class InsufficientScope(OAuth2Error):
    """RFC 6750 §3.1: 403 naming the scope the request needs."""

    error = "insufficient_scope"
    status_code = 403

    def __init__(self, scope: str, description: str | None = None) -> None:
        super().__init__(description)
        self.scope = safe_description(scope).replace('"', "")
        self.headers["WWW-Authenticate"] = _bearer_challenge(
            self.error, self.description, scope=self.scope
        )


def bearer_required_challenge() -> str:
    """RFC 6750 §3.1: a request without any token gets no error code."""
    return f'Bearer realm="{REALM}"'
