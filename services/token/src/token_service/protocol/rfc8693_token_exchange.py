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
- The provider's own API (``{issuer}/api``) is never a target, whatever the client's
  ``tokenExchangeAudiences`` hold (``invalid_target``): a token for it would be a copy of
  the person's own token that reaches the self-service and administration APIs.
- The subject token must be addressed to the exchanging client: its ``aud`` holds the
  ``client_id``, or the audience of a resource API (not the provider's own) of which the
  client holds a scope (the client is that API's own client). Else ``invalid_request``.
- The new token's scope is the requested scope (omitted: the subject token's) ∩ the
  subject token's scope ∩ the target APIs' scopes: an exchange never widens. Empty:
  ``invalid_scope``. It expires no later than the subject token, and keeps its sign-in
  (``auth_time``, ``acr``, ``amr``) and its session (``sid``).
- A sender-constrained subject token (``cnf.jkt``, RFC 9449 §6.1) is exchanged only with a
  DPoP proof (else ``invalid_request``); the new token is bound to the proof's key, the
  exchanging client's own, so it stays sender-constrained.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from idp_common.protocol.constants import TOKEN_TYPE_URN_ACCESS_TOKEN
from idp_common.protocol.rfc6749_errors import InvalidRequest, InvalidScope
from idp_common.protocol.rfc6749_scope import parse_scope
from idp_common.protocol.rfc9449_dpop import bound_jkt
from token_service.protocol.rfc8707_resource import (
    MAX_RESOURCE_LENGTH,
    MAX_RESOURCES,
    InvalidTarget,
    parse_resources,
)

__all__ = [
    "OWN_API_REFUSED",
    "PROOF_REQUIRED",
    "CarriedSignIn",
    "ExchangeRequest",
    "actor_claim",
    "carried_sign_in",
    "check_addressed_to",
    "check_allowed_targets",
    "check_sender_constraint",
    "exchanged_expiry",
    "exchanged_scopes",
    "parse_exchange",
    "token_audiences",
]

AUDIENCE: Final = "audience"
#: Why the provider's own API is refused as a target (the audit row keeps it too).
OWN_API_REFUSED: Final = (
    "the provider's own API is never an exchange audience: the new token could act as the "
    "person's own token"
)
#: Why a DPoP-bound subject token without a proof is refused.
PROOF_REQUIRED: Final = (
    "the subject_token is DPoP-bound: send a DPoP proof with the exchange, the new token "
    "is bound to its key"
)


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


def check_allowed_targets(
    targets: Iterable[str], allowed: Collection[str], *, own_api: str
) -> None:
    """Every target is one of the client's ``tokenExchangeAudiences`` and none is the
    provider's own API (``own_api``, ``{issuer}/api``), even when ``allowed`` holds it (a
    value stored before the rule); else ``invalid_target``."""
    for target in targets:
        if target == own_api:
            raise InvalidTarget(OWN_API_REFUSED)
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


def check_sender_constraint(subject_claims: Mapping[str, Any], proved_jkt: str | None) -> None:
    """A subject token bound to a key (``cnf.jkt``) is exchanged only with a DPoP proof
    (``proved_jkt``: its key's thumbprint), else ``invalid_request`` (§2.2.2: unacceptable
    based on policy). The proof's key need not be the subject token's: that key is the
    person's client's, which the exchanging API does not hold; the new token is bound to
    the proof's key instead (RFC 9449 §6.1), so the exchange never yields a bearer token."""
    if bound_jkt(subject_claims) is not None and proved_jkt is None:
        raise InvalidRequest(PROOF_REQUIRED)


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


@dataclass(frozen=True)
class CarriedSignIn:
    """What the new token keeps of the subject token's sign-in."""

    auth_time: int | None
    acr: str | None
    amr: list[str] | None
    sid: str | None


def carried_sign_in(claims: Mapping[str, Any]) -> CarriedSignIn:
    """The subject token's ``auth_time``, ``acr``, ``amr`` (how the person signed in) and
    ``sid`` (the session it was issued in: the new token ends with it), each when it is of
    its type."""
    auth_time, acr, amr, sid = (claims.get(n) for n in ("auth_time", "acr", "amr", "sid"))
    whole = isinstance(auth_time, int) and not isinstance(auth_time, bool)
    return CarriedSignIn(
        auth_time=auth_time if whole else None,
        acr=acr if isinstance(acr, str) else None,
        amr=[v for v in amr if isinstance(v, str)] if isinstance(amr, list) else None,
        sid=sid if isinstance(sid, str) and sid else None,
    )


def actor_claim(client_id: str, prior: Any) -> dict[str, Any]:
    """§4.1 ``act``: the exchanging client, the subject token's own ``act`` nested in it."""
    act: dict[str, Any] = {"sub": client_id}
    if isinstance(prior, dict) and prior:
        act["act"] = prior
    return act


def exchanged_expiry(now: int, ttl: int, subject_exp: int) -> int:
    """The new token's ``exp``: the usual lifetime, never past the subject token's."""
    return min(now + ttl, subject_exp)
