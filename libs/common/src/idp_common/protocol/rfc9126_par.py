"""Pushed Authorization Requests (RFC 9126): the pure rules.

- §2: the client posts the authorization request's parameters to
  ``/oauth2/par`` (:data:`PAR_PATH`), authenticated as at the token endpoint; the request
  is validated as ``/oauth2/authorize`` would validate it. §2.1: a ``request_uri`` in the
  pushed request is ``invalid_request`` (:func:`pushed_parameters`).
- §2.2: the answer is ``201`` with ``request_uri`` (:data:`REQUEST_URI_PREFIX` and a
  random reference, :func:`new_request_uri`) and ``expires_in``.
- §4: ``/oauth2/authorize?client_id=...&request_uri=...`` uses the stored request; the
  other query parameters are ignored. An unknown, expired, used or another client's
  ``request_uri`` is ``invalid_request_uri`` (:class:`InvalidRequestUri`), and one
  ``request_uri`` is used once.
- §5: a client may be required to push (``require_pushed_authorization_requests``; the
  FAPI 2.0 profile requires it too): :func:`must_push`.

Storage (Redis, ``token_service.state.pushed_requests``) and HTTP are elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

import msgspec

from idp_common.protocol.oidc_authorize import ALL_PARAMETERS, PARAMETER_BOUNDS
from idp_common.protocol.rfc4648_base64url import base64url_encode
from idp_common.protocol.rfc6749_errors import InvalidRequest, OAuth2Error

__all__ = [
    "DEFAULT_LIFETIME_SECONDS",
    "MAX_LIFETIME_SECONDS",
    "PAR_PATH",
    "PUSHABLE_PARAMETERS",
    "REQUEST_URI_PREFIX",
    "InvalidRequestUri",
    "PushedRequest",
    "must_push",
    "new_request_uri",
    "pushed_parameters",
    "reference_of",
]

PAR_PATH: Final = "/oauth2/par"
#: RFC 9126 §2.2: a URN of the ``urn:ietf:params:oauth:request_uri`` namespace.
REQUEST_URI_PREFIX: Final = "urn:ietf:params:oauth:request_uri:"
#: Seconds a pushed request lives (``SVC_PAR_REQUEST_TTL``); FAPI 2.0 SP §5.3.2.1 asks for
#: less than 600, RFC 9126 §2.2 suggests 5 to 600.
DEFAULT_LIFETIME_SECONDS: Final = 60
MAX_LIFETIME_SECONDS: Final = 599
#: Random bytes in a reference: 256 bits, base64url (43 characters).
REFERENCE_BYTES: Final = 32
_REFERENCE: Final = re.compile(r"[A-Za-z0-9_-]{43}")
#: The authorization parameters a pushed request keeps: every parameter of
#: ``/oauth2/authorize`` but the sign-in page's ``challenge`` and ``request_uri`` itself.
PUSHABLE_PARAMETERS: Final = tuple(
    name for name in ALL_PARAMETERS if name not in {"challenge", "request_uri"}
)


class InvalidRequestUri(OAuth2Error):
    """RFC 9126 §4 and OIDC Core §3.1.2.6: the ``request_uri`` is unknown, expired, used
    already or pushed by another client."""

    error = "invalid_request_uri"


class PushedRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What is stored for one ``request_uri``: the client it is bound to, the validated
    authorization parameters (no client credentials) and the RFC 8707 ``resource`` values
    (a parameter that may repeat)."""

    client_id: str
    parameters: dict[str, str]
    resources: list[str] = msgspec.field(default_factory=list)


def new_request_uri(random: bytes) -> tuple[str, str]:
    """``(request_uri, reference)`` for ``random`` (:data:`REFERENCE_BYTES` bytes)."""
    if len(random) != REFERENCE_BYTES:
        raise ValueError(f"a reference needs {REFERENCE_BYTES} random bytes")
    reference = base64url_encode(random)
    return REQUEST_URI_PREFIX + reference, reference


def reference_of(request_uri: str) -> str | None:
    """The reference inside a ``request_uri`` this provider made; None for anything else
    (it cannot name a stored request, so nothing is looked up)."""
    if not request_uri.startswith(REQUEST_URI_PREFIX):
        return None
    reference = request_uri.removeprefix(REQUEST_URI_PREFIX)
    return reference if _REFERENCE.fullmatch(reference) else None


def pushed_parameters(form: Mapping[str, str]) -> dict[str, str]:
    """The authorization parameters of a pushed form (client credentials left out).

    Raises ``InvalidRequest`` for a ``request_uri`` (RFC 9126 §2.1) and for a value past its
    bound (:data:`idp_common.protocol.oidc_authorize.PARAMETER_BOUNDS`): at this endpoint
    the client hears the error, not a person.
    """
    if "request_uri" in form:
        raise InvalidRequest("request_uri must not be sent in a pushed authorization request")
    values = {name: form[name] for name in PUSHABLE_PARAMETERS if name in form}
    for name, value in values.items():
        if len(value) > PARAMETER_BOUNDS[name]:
            raise InvalidRequest(f"the {name} parameter is longer than {PARAMETER_BOUNDS[name]}")
    return values


def must_push(*, required_by_client: bool, fapi2: bool) -> bool:
    """RFC 9126 §5 ``require_pushed_authorization_requests``, or the FAPI 2.0 profile
    (FAPI 2.0 Security Profile §5.3.2.1: PAR only)."""
    return required_by_client or fapi2
