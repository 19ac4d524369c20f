"""An OAuth client as the protocol endpoints read it (:class:`ClientRecord`) and as the
administration API writes and shows it (docs/design.md "Wire contracts" → Clients); stored
by :mod:`idp_common.storage.repos.clients`.

``id_token_signed_response_alg`` and ``userinfo_signed_response_alg`` keep their OIDC
Dynamic Client Registration 1.0 §2 names on the wire (as ``client_id`` does):
the ID tokens' algorithm (also the logout tokens'), default RS256; the userinfo
answer's, default none (plain JSON).

The client properties of modern OAuth keep their registry names on the wire too
(``token_endpoint_auth_method``, ``jwks``, ``jwks_uri``,
``require_pushed_authorization_requests``, ``dpop_bound_access_tokens``); the two of the
provider's own are camelCase (``securityProfile``, ``tokenExchangeAudiences``).

``allowedWebOrigins``: the stored list (empty: the redirect URIs' origins
apply, :attr:`ClientRecord.web_origins`).

``logoUri``, ``tosUri``, ``policyUri`` (RFC 7591 ``logo_uri``, ``tos_uri``,
``policy_uri``): read-only, from the client's own brand row.

``disabled``: an administrator switched the client off (default false). The protocol
endpoints then treat it as a client that does not exist (``invalid_client``, the error page
of an unknown ``client_id``) and its tokens stop; nothing else of it changes, so switching
it on again restores it (docs/decisions.md "Disabling a client")."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

import msgspec

from idp_common.protocol.constants import SIGNING_ALGORITHM
from idp_common.protocol.fetch_cors import effective_web_origins

ClientType = Literal["confidential", "public"]
#: The wire (and column) names of the two algorithm fields: OIDC Registration's, verbatim.
ID_TOKEN_ALG: Final = "id_token_signed_response_alg"  # noqa: S105 - a field name
USERINFO_ALG: Final = "userinfo_signed_response_alg"
AUTH_METHOD: Final = "token_endpoint_auth_method"
REQUIRE_PAR: Final = "require_pushed_authorization_requests"
DPOP_BOUND: Final = "dpop_bound_access_tokens"
#: Fields the wire spells as the registries do (snake_case), by attribute name.
REGISTRY_NAMES: Final = frozenset(
    {ID_TOKEN_ALG, USERINFO_ALG, AUTH_METHOD, "jwks", "jwks_uri", REQUIRE_PAR, DPOP_BOUND}
)


class ClientRecord(msgspec.Struct, frozen=True, kw_only=True):
    pk: uuid.UUID
    client_id: str
    name: str
    type: str  # "confidential" | "public"
    redirect_uris: tuple[str, ...]
    post_logout_redirect_uris: tuple[str, ...]
    backchannel_logout_uri: str | None
    grant_types: frozenset[str]
    skip_consent: bool
    scopes: frozenset[str]
    secret_digest: bytes | None
    id_token_signed_response_alg: str = SIGNING_ALGORITHM
    userinfo_signed_response_alg: str | None = None
    token_endpoint_auth_method: str = "client_secret_basic"  # noqa: S105 - a method name
    jwks: dict[str, Any] | None = None
    jwks_uri: str | None = None
    require_pushed_authorization_requests: bool = False
    dpop_bound_access_tokens: bool = False
    security_profile: str | None = None
    token_exchange_audiences: frozenset[str] = frozenset()
    #: The sealed secret of a ``client_secret_jwt`` client (``idp_common.crypto.secretbox``).
    sealed_secret: bytes | None = None
    allowed_web_origins: tuple[str, ...] = ()
    #: Switched off by an administrator: no sign-in, no token (``token_service.context``).
    disabled: bool = False

    @property
    def is_confidential(self) -> bool:
        return self.type == "confidential"

    @property
    def web_origins(self) -> tuple[str, ...]:
        """The origins whose pages may call the provider for it (CORS)."""
        return effective_web_origins(self.allowed_web_origins, self.redirect_uris)

    @property
    def is_fapi2(self) -> bool:
        return self.security_profile == "fapi2"


class ClientRead(msgspec.Struct, frozen=True, rename="camel"):
    """A client as the admin API shows it: never its secret nor the secret's digest."""

    client_id: str = msgspec.field(name="client_id")
    name: str
    type: ClientType
    redirect_uris: list[str]
    post_logout_redirect_uris: list[str]
    backchannel_logout_uri: str | None
    grant_types: list[str]
    skip_consent: bool
    disabled: bool
    scopes: list[str]
    created_at: datetime
    updated_at: datetime
    # No defaults: the creation's answer (``omit_defaults``) shows them too.
    id_token_signed_response_alg: str = msgspec.field(name=ID_TOKEN_ALG)
    userinfo_signed_response_alg: str | None = msgspec.field(name=USERINFO_ALG)
    token_endpoint_auth_method: str = msgspec.field(name=AUTH_METHOD)
    jwks: dict[str, Any] | None = msgspec.field(name="jwks")
    jwks_uri: str | None = msgspec.field(name="jwks_uri")
    require_pushed_authorization_requests: bool = msgspec.field(name=REQUIRE_PAR)
    dpop_bound_access_tokens: bool = msgspec.field(name=DPOP_BOUND)
    security_profile: str | None
    token_exchange_audiences: list[str]
    allowed_web_origins: list[str]
    # RFC 7591 §2 metadata from the client's own brand: read-only here, set
    # through /admin/clients/{client_id}/branding (storage.repos.brands.branded_clients).
    logo_uri: str | None
    tos_uri: str | None
    policy_uri: str | None


class ClientCreated(ClientRead, frozen=True, omit_defaults=True):
    """The answer to a creation: ``client_secret`` only for a confidential client."""

    client_secret: str | None = msgspec.field(default=None, name="client_secret")


class SecretRotated(msgspec.Struct, frozen=True):
    client_id: str
    client_secret: str


@dataclass(frozen=True)
class ClientSettings:
    """The settable fields of a client, as one whole (creation, or after a patch)."""

    name: str
    redirect_uris: list[str]
    post_logout_redirect_uris: list[str]
    backchannel_logout_uri: str | None
    grant_types: list[str]
    skip_consent: bool
    id_token_signed_response_alg: str = SIGNING_ALGORITHM
    userinfo_signed_response_alg: str | None = None
    #: None at a creation: ``client_secret_basic`` when confidential, ``none`` when public.
    token_endpoint_auth_method: str | None = None
    jwks: dict[str, Any] | None = None
    jwks_uri: str | None = None
    require_pushed_authorization_requests: bool = False
    dpop_bound_access_tokens: bool = False
    security_profile: str | None = None
    token_exchange_audiences: list[str] = field(default_factory=list)
    allowed_web_origins: list[str] = field(default_factory=list)
    disabled: bool = False
