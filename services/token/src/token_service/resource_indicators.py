"""Resource indicators (RFC 8707) for every grant that issues an access token.

The rules are :mod:`token_service.protocol.rfc8707_resource`; this module loads the named
APIs (one query, only when ``resource`` was sent) and applies the choice to an
:class:`~token_service.issuance.Authorization`:

- without ``resource`` nothing changes (docs/design.md §2: ``aud`` is the granted scopes' APIs,
  the provider's own first for a token about a person);
- with it, the scope narrows to the chosen APIs' scopes (the OpenID Connect scopes stay),
  ``aud`` is the chosen audiences, and the token is signed with their algorithm
  (:mod:`token_service.signing`). A token about a person that keeps ``openid`` also keeps
  the provider's own audience, first: OIDC Core §5.3 lets that token read userinfo (as
  Auth0 adds its userinfo audience).

At ``/oauth2/authorize`` :func:`narrow_request` narrows the requested scopes to the named
resources before anything is stored (no column remembers the resources: the code's scope
does, and at the token endpoint a ``resource`` must be an API that scope reaches).

A grant calls :func:`requested_targets` before it spends anything (a malformed or unknown
resource is ``invalid_target`` and leaves a code or refresh token usable), may check the
choice with :meth:`Targets.select` inside its spend, and calls
:func:`narrow_authorization` before signing. :func:`with_resources` does both for a grant
that spends nothing first (the device grant).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from idp_common.protocol.constants import SCOPE_OPENID
from idp_common.protocol.oidc_authorize import AuthorizationRequest
from idp_common.storage.repos.apis import apis_by_audience
from idp_common.storage.repos.clients import ClientRecord
from token_service.context import GrantDeps, TokenContext
from token_service.issuance import Authorization, person_audiences
from token_service.protocol.rfc8707_resource import (
    InvalidTarget,
    ResourceApi,
    ResourceChoice,
    parse_resources,
    select_resources,
)
from token_service.signing import access_token_alg

__all__ = [
    "Targets",
    "narrow_authorization",
    "narrow_request",
    "requested_targets",
    "resource_apis",
    "with_resources",
]


@dataclass(frozen=True)
class Targets:
    """The resources a token request named, and their APIs (keyed by audience)."""

    resources: list[str]
    apis: dict[str, ResourceApi]

    def select(self, granted: Sequence[str]) -> ResourceChoice:
        """Raises ``InvalidTarget`` when the grant holds no scope of a named resource."""
        return select_resources(self.resources, self.apis, granted)


async def resource_apis(ctx: TokenContext, audiences: Sequence[str]) -> dict[str, ResourceApi]:
    """The APIs whose audience is among ``audiences``, keyed by it (one query)."""
    if not audiences:
        return {}
    async with ctx.resources.sessions() as session:
        found = await apis_by_audience(session, audiences)
    return {
        api.audience: ResourceApi(api.audience, api.access_token_signing_alg, api.scopes)
        for api in found
    }


async def requested_targets(deps: GrantDeps, values: Sequence[str]) -> Targets | None:
    """The request's ``resource`` values and their APIs; None when there is none.
    Raises ``InvalidTarget`` for a malformed value or one that names no API."""
    return await _targets(deps.ctx, values)


async def _targets(ctx: TokenContext, values: Sequence[str]) -> Targets | None:
    resources = parse_resources(values)
    if not resources:
        return None
    apis = await resource_apis(ctx, resources)
    if any(resource not in apis for resource in resources):
        raise InvalidTarget("resource is not a known API")
    return Targets(resources, apis)


async def narrow_request(
    ctx: TokenContext, client: ClientRecord, req: AuthorizationRequest, values: Sequence[str]
) -> AuthorizationRequest:
    """``/oauth2/authorize``: the request asks only for the named resources' scopes (and
    the OpenID Connect ones), so the consent, the code and its refresh tokens hold no
    more (RFC 8707 §2.1). Each resource must be an API of which the request asks for a
    scope the client holds, else ``invalid_target``. Unchanged without ``resource``."""
    targets = await _targets(ctx, values)
    if targets is None:
        return req
    choice = targets.select([value for value in req.scopes if value in client.scopes])
    return replace(req, scopes=choice.scopes)


def narrow_authorization(
    auth: Authorization, targets: Targets | None, provider_audience: str
) -> Authorization:
    """``auth`` for the named resources only (see the module); unchanged without any."""
    if targets is None:
        return auth
    choice = targets.select(auth.scopes)
    audiences: Sequence[str] = choice.audiences
    if auth.user is not None and SCOPE_OPENID in choice.scopes:
        audiences = person_audiences(provider_audience, audiences)
    pairs = [(api.audience, api.alg) for api in choice.apis]
    return replace(
        auth,
        scopes=choice.scopes,
        audiences=audiences,
        access_token_alg=access_token_alg(pairs, provider_audience),
    )


async def with_resources(
    deps: GrantDeps, auth: Authorization, values: Sequence[str]
) -> Authorization:
    """:func:`requested_targets` then :func:`narrow_authorization`: the one call of a
    grant that has nothing to take back when the resource is refused."""
    targets = await requested_targets(deps, values)
    return narrow_authorization(auth, targets, deps.ctx.settings.api_audience)
