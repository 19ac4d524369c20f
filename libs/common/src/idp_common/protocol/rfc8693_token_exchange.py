"""OAuth 2.0 Token Exchange (RFC 8693): the pure rules of the exchange grant.

RFC 8693 §2.1: the client sends ``subject_token`` and ``subject_token_type`` (REQUIRED),
``actor_token``/``actor_token_type``, ``requested_token_type``, ``audience``, ``resource``
(both MAY repeat) and ``scope`` (OPTIONAL). §2.2.2:

    If the request itself is not valid or if either the "subject_token" or
    "actor_token" are invalid for any reason, or are unacceptable based on policy, the
    "invalid_request" error code MUST be used. If the authorization server is unwilling
    or unable to issue a token for any target service indicated by the "resource" or
    "audience" parameters, the "invalid_target" error code SHOULD be used.

Rules here (docs/oauth/token-exchange.md, "Decisions"):

- Only this provider's access tokens are exchanged
  (``urn:ietf:params:oauth:token-type:access_token``), only for an access token.
- ``actor_token`` is refused (``invalid_request``): the actor is the authenticated client
  itself, named in ``act`` (§4.1). ``act`` nests a prior ``act`` of the subject token.
- The targets are the ``audience`` and ``resource`` values together; at least one, each
  one of the client's ``tokenExchangeAudiences`` (an administrator's decision) and the
  audience of an API, else ``invalid_target``.
- The subject token must be addressed to the exchanging client: its ``aud`` holds the
  ``client_id``, or the audience of a resource API (not the provider's own) of which the
  client holds a scope (the client is that API's own client). Else ``invalid_request``.
- The new token's scope is the requested scope (omitted: the subject token's) ∩ the
  subject token's scope ∩ the target APIs' scopes: an exchange never widens. Empty:
  ``invalid_scope``. It expires no later than the subject token.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from idp_common.protocol.constants import TOKEN_TYPE_URN_ACCESS_TOKEN
from idp_common.protocol.rfc6749_errors import InvalidRequest, InvalidScope
from idp_common.protocol.rfc6749_scope import parse_scope
from idp_common.protocol.rfc8707_resource import (
    MAX_RESOURCE_LENGTH,
    MAX_RESOURCES,
    InvalidTarget,
    parse_resources,
)

__all__ = [
    "ExchangeRequest",
    "actor_claim",
    "check_addressed_to",
    "check_allowed_targets",
    "exchanged_expiry",
    "exchanged_scopes",
    "parse_exchange",
    "token_audiences",
]

AUDIENCE: Final = "audience"


@dataclass(frozen=True)
class ExchangeRequest:
    """A token exchange request that passed the shape checks of §2.1."""

    subject_token: str
    targets: tuple[str, ...]
    scopes: list[str]


def parse_exchange(
    *,
    subject_token: str | None,
    subject_token_type: str | None,
    actor_token: str | None,
    actor_token_type: str | None,
    requested_token_type: str | None,
    audiences: Sequence[str],
    resources: Sequence[str],
    scope: str | None,
) -> ExchangeRequest:
    """§2.1 shape checks. Raises ``InvalidRequest``, ``InvalidTarget`` or ``InvalidScope``."""
    if not subject_token:
        raise InvalidRequest("subject_token is required")
    if not subject_token_type:
        raise InvalidRequest("subject_token_type is required")
    if subject_token_type != TOKEN_TYPE_URN_ACCESS_TOKEN:
        raise InvalidRequest(f"subject_token_type must be {TOKEN_TYPE_URN_ACCESS_TOKEN}")
    if actor_token or actor_token_type:
        raise InvalidRequest("actor_token is not supported: the authenticated client is the actor")
    if requested_token_type and requested_token_type != TOKEN_TYPE_URN_ACCESS_TOKEN:
        raise InvalidRequest(f"requested_token_type must be {TOKEN_TYPE_URN_ACCESS_TOKEN}")
    named = [value for value in audiences if value]
    if any(len(value) > MAX_RESOURCE_LENGTH for value in named):
        raise InvalidTarget(f"an audience is longer than {MAX_RESOURCE_LENGTH} characters")
    targets = tuple(dict.fromkeys([*named, *parse_resources(resources)]))
    if not targets:
        raise InvalidTarget("name the target API with audience or resource")
    if len(targets) > MAX_RESOURCES:
        raise InvalidTarget(f"at most {MAX_RESOURCES} targets")
    return ExchangeRequest(subject_token, targets, parse_scope(scope))


def check_allowed_targets(targets: Iterable[str], allowed: Collection[str]) -> None:
    """Every target is one of the client's ``tokenExchangeAudiences``; else ``invalid_target``."""
    for target in targets:
        if target not in allowed:
            raise InvalidTarget("the client may not exchange tokens for this audience")


def token_audiences(claims: Mapping[str, Any]) -> list[str]:
    """The ``aud`` of a token as a list (RFC 7519 §4.1.3: a string or an array)."""
    aud = claims.get("aud")
    if isinstance(aud, str):
        return [aud]
    if isinstance(aud, list):
        return [value for value in aud if isinstance(value, str)]
    return []


def check_addressed_to(
    subject_aud: Sequence[str], client_id: str, represented: Collection[str]
) -> None:
    """The subject token was issued for the exchanging client: its ``aud`` holds the
    ``client_id`` or one of the audiences the client ``represented`` (the APIs, other than
    the provider's own, of which it holds a scope). Else ``invalid_request`` (§2.2.2)."""
    if client_id in subject_aud or any(value in represented for value in subject_aud):
        return
    raise InvalidRequest("the subject_token is not addressed to this client")


def exchanged_scopes(
    requested: Sequence[str], subject_scopes: Sequence[str], target_scopes: Collection[str]
) -> list[str]:
    """requested (omitted: the subject token's) ∩ the subject token's ∩ the targets'."""
    held = set(subject_scopes)
    asked = requested or subject_scopes
    scopes = [value for value in dict.fromkeys(asked) if value in held and value in target_scopes]
    if not scopes:
        raise InvalidScope("none of the requested scopes may be exchanged for this audience")
    return scopes


def actor_claim(client_id: str, prior: Any) -> dict[str, Any]:
    """§4.1 ``act``: the exchanging client, the subject token's own ``act`` nested in it."""
    act: dict[str, Any] = {"sub": client_id}
    if isinstance(prior, dict) and prior:
        act["act"] = prior
    return act


def exchanged_expiry(now: int, ttl: int, subject_exp: int) -> int:
    """The new token's ``exp``: the usual lifetime, never past the subject token's."""
    return min(now + ttl, subject_exp)
