"""Resource indicators (RFC 8707): the ``resource`` parameter selects the APIs a token is for.

RFC 8707 §2:

    resource: Indicates the target service or resource to which access is being
    requested. Its value MUST be an absolute URI, as specified by Section 4.3 of
    [RFC3986]. The URI MUST NOT include a fragment component. [...] Multiple "resource"
    parameters MAY be used to indicate that the requested token is intended to be used at
    multiple resources.

    invalid_target: The requested resource is invalid, missing, unknown, or malformed.

Here a resource names a resource API by its ``audience`` (contract §2 "Resource API and
scope"). Rules (pure; the token service loads the APIs, :mod:`token_service.resource_indicators`):

- :func:`parse_resources`: every value an absolute URI (a scheme and, for hierarchical
  URIs, whatever follows), without a fragment, at most :data:`MAX_RESOURCE_LENGTH`
  characters and :data:`MAX_RESOURCES` distinct values; else ``invalid_target``.
- :func:`select_resources`: each resource must be an API's audience, and the grant must
  hold at least one scope of it; the token's scopes narrow to the chosen APIs' scopes (the
  OpenID Connect scopes ``openid profile email offline_access`` stay: they are about the
  ID token and the refresh token, not an API); its ``aud`` is the chosen audiences, in the
  order asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from idp_common.protocol.rfc6749_errors import OAuth2Error
from idp_common.protocol.rfc6749_scope import is_api_scope

__all__ = [
    "MAX_RESOURCES",
    "MAX_RESOURCE_LENGTH",
    "RESOURCE",
    "InvalidTarget",
    "ResourceApi",
    "ResourceChoice",
    "parse_resources",
    "select_resources",
]

#: The request parameter (RFC 8707 §2), which may repeat.
RESOURCE: Final = "resource"
MAX_RESOURCES: Final = 10
MAX_RESOURCE_LENGTH: Final = 2048
#: RFC 3986 §3.1: ``scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`` then ``:``.
_ABSOLUTE: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s]+")


class InvalidTarget(OAuth2Error):
    """RFC 8707 §2 and RFC 8693 §2.2.2: the resource or audience is not acceptable."""

    error = "invalid_target"


@dataclass(frozen=True)
class ResourceApi:
    """A resource API as a resource indicator sees it: its audience, the algorithm of its
    access tokens and the values of its scopes."""

    audience: str
    alg: str
    scopes: frozenset[str]


@dataclass(frozen=True)
class ResourceChoice:
    """What the requested resources make of a grant's scopes."""

    scopes: list[str]
    audiences: tuple[str, ...]
    apis: tuple[ResourceApi, ...]


def resource_problem(value: str) -> str | None:
    """Why ``value`` cannot be a resource indicator, or None."""
    if len(value) > MAX_RESOURCE_LENGTH:
        return f"is longer than {MAX_RESOURCE_LENGTH} characters"
    if not _ABSOLUTE.fullmatch(value) or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return "is not an absolute URI"
    if "#" in value:
        return "has a fragment"
    return None


def parse_resources(values: Iterable[str]) -> list[str]:
    """The distinct non-empty ``resource`` values, in order. Raises ``InvalidTarget``."""
    found = list(dict.fromkeys(value for value in values if value))
    if len(found) > MAX_RESOURCES:
        raise InvalidTarget(f"at most {MAX_RESOURCES} resource values")
    for value in found:
        problem = resource_problem(value)
        if problem:
            raise InvalidTarget(f"a resource value {problem}")
    return found


def select_resources(
    resources: Sequence[str], apis: Mapping[str, ResourceApi], granted: Sequence[str]
) -> ResourceChoice:
    """Narrow ``granted`` to the APIs named by ``resources`` (their audiences, ``apis``
    keyed by audience). Raises ``InvalidTarget`` for an unknown resource or one of whose
    scopes the grant holds none."""
    chosen: list[ResourceApi] = []
    for resource in resources:
        api = apis.get(resource)
        if api is None:
            raise InvalidTarget("resource is not a known API")
        if not any(value in api.scopes for value in granted):
            raise InvalidTarget("none of the granted scopes belongs to the resource")
        chosen.append(api)
    allowed = frozenset().union(*(api.scopes for api in chosen))
    scopes = [value for value in granted if value in allowed or not is_api_scope(value)]
    return ResourceChoice(
        scopes=scopes,
        audiences=tuple(api.audience for api in chosen),
        apis=tuple(chosen),
    )
