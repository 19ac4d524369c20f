"""``/admin/clients``: register, read, change and delete OAuth clients (contract §4
"Admin: clients", docs/design.md "Wire contracts" → Clients).

The settings' rules live in :mod:`admin_service.client_rules`, the storage (secrets, the
console client) in :mod:`idp_common.storage.repos.clients`. A client secret appears only
in the answers of the creation and of ``rotate-secret``, never in an audit row or a log.

``disabled`` switches a client off (and on again): it stays ``client.update`` in the audit
log, as a person's ``disabled`` stays ``user.update``, with ``detail.disabled`` (true: it
was disabled, false: enabled) beside ``detail.fields``. Every write bumps the ``clients``
change stamp after its commit, so the token service and the bearer guard see it on the
next request.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

import msgspec
from litestar import Router, delete, get, patch, post, put
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK

from admin_service.authority import (
    caller_holds,
    check_may_give,
    check_may_take_over_client,
    check_recent_secret,
)
from admin_service.client_rules import check_settings
from admin_service.client_stamp import announce_client_change
from admin_service.exchange_audiences import check_exchange_audiences
from admin_service.routes import Limit, Names, Req, operation, reading, writing
from admin_service.signing_algs import check_signing_algs
from idp_common.errors import ServiceUnavailable
from idp_common.protocol.constants import (
    CLIENT_AUTH_SECRET_JWT,
    GRANT_TYPE_AUTHORIZATION_CODE,
    SCOPE_IDP_CLIENTS_READ,
    SCOPE_IDP_CLIENTS_WRITE,
    SIGNING_ALGORITHM,
)
from idp_common.storage.repos import clients as repo
from idp_common.storage.repos.brands import branded_clients
from idp_common.storage.repos.client_shapes import (
    AUTH_METHOD,
    DPOP_BOUND,
    ID_TOKEN_ALG,
    REQUIRE_PAR,
    USERINFO_ALG,
    ClientCreated,
    ClientRead,
    ClientSettings,
    ClientType,
    SecretRotated,
)
from idp_common.storage.repos.paging import DEFAULT_LIMIT, Page
from idp_common.web.caller import resources_of

log = logging.getLogger("idp.admin.clients")

READ, WRITE = SCOPE_IDP_CLIENTS_READ, SCOPE_IDP_CLIENTS_WRITE
_CLIENT = "/{client_id:str}"


class ClientCreate(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    name: str
    type: ClientType
    redirect_uris: Names = msgspec.field(default_factory=list)
    post_logout_redirect_uris: Names = msgspec.field(default_factory=list)
    backchannel_logout_uri: str | None = None
    grant_types: Names = msgspec.field(default_factory=lambda: [GRANT_TYPE_AUTHORIZATION_CODE])
    skip_consent: bool = False
    id_token_signed_response_alg: str = msgspec.field(default=SIGNING_ALGORITHM, name=ID_TOKEN_ALG)
    userinfo_signed_response_alg: str | None = msgspec.field(default=None, name=USERINFO_ALG)
    token_endpoint_auth_method: str | None = msgspec.field(default=None, name=AUTH_METHOD)
    jwks: dict[str, Any] | None = msgspec.field(default=None, name="jwks")
    jwks_uri: str | None = msgspec.field(default=None, name="jwks_uri")
    require_pushed_authorization_requests: bool = msgspec.field(default=False, name=REQUIRE_PAR)
    dpop_bound_access_tokens: bool = msgspec.field(default=False, name=DPOP_BOUND)
    security_profile: str | None = None
    token_exchange_audiences: Names = msgspec.field(default_factory=list)
    allowed_web_origins: Names = msgspec.field(default_factory=list)
    disabled: bool = False


class ClientUpdate(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    """Members left out keep their value; ``backchannelLogoutUri: null`` clears it."""

    name: str | msgspec.UnsetType = msgspec.UNSET
    redirect_uris: Names | msgspec.UnsetType = msgspec.UNSET
    post_logout_redirect_uris: Names | msgspec.UnsetType = msgspec.UNSET
    backchannel_logout_uri: str | msgspec.UnsetType | None = msgspec.UNSET
    grant_types: Names | msgspec.UnsetType = msgspec.UNSET
    skip_consent: bool | msgspec.UnsetType = msgspec.UNSET
    id_token_signed_response_alg: str | msgspec.UnsetType = msgspec.field(
        default=msgspec.UNSET, name=ID_TOKEN_ALG
    )
    userinfo_signed_response_alg: str | msgspec.UnsetType | None = msgspec.field(
        default=msgspec.UNSET, name=USERINFO_ALG
    )
    token_endpoint_auth_method: str | msgspec.UnsetType = msgspec.field(
        default=msgspec.UNSET, name=AUTH_METHOD
    )
    jwks: dict[str, Any] | msgspec.UnsetType | None = msgspec.field(
        default=msgspec.UNSET, name="jwks"
    )
    jwks_uri: str | msgspec.UnsetType | None = msgspec.field(default=msgspec.UNSET, name="jwks_uri")
    require_pushed_authorization_requests: bool | msgspec.UnsetType = msgspec.field(
        default=msgspec.UNSET, name=REQUIRE_PAR
    )
    dpop_bound_access_tokens: bool | msgspec.UnsetType = msgspec.field(
        default=msgspec.UNSET, name=DPOP_BOUND
    )
    security_profile: str | msgspec.UnsetType | None = msgspec.UNSET
    token_exchange_audiences: Names | msgspec.UnsetType = msgspec.UNSET
    allowed_web_origins: Names | msgspec.UnsetType = msgspec.UNSET
    disabled: bool | msgspec.UnsetType = msgspec.UNSET

    def changes(self) -> dict[str, object]:
        return {f: v for f, v in msgspec.structs.asdict(self).items() if v is not msgspec.UNSET}


_WIRE_NAMES = {f.name: f.encode_name for f in msgspec.structs.fields(ClientUpdate)}
#: Fields whose change lets the author act as the client (receive its codes, use a grant,
#: authenticate with a key of their own, exchange its tokens for another API).
_TAKEOVER_FIELDS = frozenset(
    {
        "redirect_uris",
        "grant_types",
        "token_endpoint_auth_method",
        "jwks",
        "jwks_uri",
        "token_exchange_audiences",
    }
)
_ALG_FIELDS = (ID_TOKEN_ALG, USERINFO_ALG)
_ALG_NOTE = (
    "`id_token_signed_response_alg` (default `RS256`; also the logout tokens') and "
    "`userinfo_signed_response_alg` (default `null`: userinfo answers plain JSON; set, it "
    "answers `application/jwt` signed with it) keep their OIDC Registration names: "
    "`RS256`, `PS256`, `ES256` or `EdDSA`, one the provider holds a key for, else 400 "
    "naming the field."
)
_ORIGINS_NOTE = (
    "`allowedWebOrigins`: the origins (`scheme://host[:port]`, lower-case, no default port, "
    "no path; `https` or loopback `http`; never `*` or `null`) whose pages may call the "
    "token, userinfo and revocation endpoints for this client (CORS); empty: the origins "
    "of its redirect URIs (docs/oauth/browser-apps.md)."
)
_DISABLED_NOTE = (
    "`disabled: true` switches the client off: it cannot authenticate, start a sign-in or "
    "get a token (answered as an unknown client), and the access tokens it holds stop at "
    "the provider's own API, userinfo and introspection; its refresh tokens are kept, so "
    "`disabled: false` restores it. Audited as `client.update` with `detail.disabled`."
)
_TAKEOVER_NOTE = (
    "Needs a recent sign-in with the password or a one-time code, and a caller holding every "
    "scope the client has (else 403 `admin.scope_not_held`)."
)


class ClientScopesUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    scopes: Names


def _own_api(request: Req) -> str:
    """The provider's own API audience: never an exchange audience."""
    return resources_of(request).settings.api_audience


def _allow_private(request: Req) -> bool:
    return resources_of(request).settings.backchannel_allow_private


def _allow_private_jwks(request: Req) -> bool:
    return resources_of(request).settings.client_jwks_allow_private


def _secrets_key(request: Req, method: str | None) -> bytes | None:
    """The deployment's secret box key: a ``client_secret_jwt`` client's secret is kept
    sealed with it; such a client cannot be created without one (503)."""
    key = resources_of(request).settings.secrets_key_bytes
    if key is None and method == CLIENT_AUTH_SECRET_JWT:
        raise ServiceUnavailable(
            "client_secret_jwt is not available: SVC_SECRETS_KEY is not configured",
            code="admin.secrets_key_missing",
        )
    return key


def _issuer(request: Req) -> str:
    """For the brand's ``logoUri``."""
    return resources_of(request).settings.issuer_base


@get(**operation("listClients", "List OAuth clients (by client_id)", READ))
async def list_clients(
    request: Req, limit: Limit = DEFAULT_LIMIT, cursor: str | None = None
) -> Page[ClientRead]:
    async with reading(request) as session:
        page = await repo.list_clients(session, limit=limit, cursor=cursor)
        items = await branded_clients(session, page.items, issuer_base=_issuer(request))
    return msgspec.structs.replace(page, items=items)


@post(
    **operation(
        "createClient",
        "Register an OAuth client",
        WRITE,
        "Answers the client with its generated `client_id` and, for a confidential client, its "
        "`client_secret`, shown only here and on rotate-secret. Redirect and logout URIs: "
        "absolute, no fragment, `https` (plain `http` only to 127.0.0.1, [::1] or localhost). "
        "`backchannelLogoutUri` must not name a loopback, private, link-local or other "
        "non-global host unless the deployment allows it (`SVC_BACKCHANNEL_ALLOW_PRIVATE`). "
        "`grantTypes` defaults to `authorization_code`. `token_endpoint_auth_method` "
        "`private_key_jwt` needs `jwks` (1 to 10 public RSA >= 2048 bits, EC P-256 or OKP "
        "keys) or `jwks_uri` (https; not a non-global host unless "
        "`SVC_CLIENT_JWKS_ALLOW_PRIVATE`), not both; `client_secret_jwt` needs "
        "`SVC_SECRETS_KEY` (else 503). Each `tokenExchangeAudiences` value must be the "
        "audience of a registered API (else 400 naming `tokenExchangeAudiences[i]`), never the "
        "provider's own API (else 422 naming it). "
        + _ORIGINS_NOTE
        + " "
        + _ALG_NOTE
        + " "
        + _DISABLED_NOTE,
    )
)
async def create_client(request: Req, data: JSONBody[ClientCreate]) -> ClientCreated:
    fields = msgspec.structs.asdict(data)
    check_signing_algs(request, {name: fields[name] for name in _ALG_FIELDS})
    client_type = fields.pop("type")
    settings = ClientSettings(**fields)
    check_settings(
        client_type,
        settings,
        allow_private=_allow_private(request),
        allow_private_jwks=_allow_private_jwks(request),
    )
    key = _secrets_key(request, settings.token_endpoint_auth_method)
    async with writing(request) as write:
        await check_exchange_audiences(
            write.session, settings.token_exchange_audiences, own_api=_own_api(request)
        )
        created = await repo.create_client(write.session, client_type, settings, secrets_key=key)
        flag = {"disabled": True} if settings.disabled else {}
        write.audit("client.create", created.client_id, status_code=201, type=client_type, **flag)
    await announce_client_change(request)  # its origins join those a CORS preflight accepts
    return created


@get(_CLIENT, **operation("getClient", "Read an OAuth client (never its secret)", READ))
async def get_client(request: Req, client_id: str) -> ClientRead:
    async with reading(request) as session:
        read = await repo.read_client(session, client_id)
        [read] = await branded_clients(session, [read], issuer_base=_issuer(request))
    return read


@patch(
    _CLIENT,
    **operation(
        "updateClient",
        "Change an OAuth client",
        WRITE,
        "Members left out keep their value; `backchannelLogoutUri: null` clears it. "
        "`client_id` and `type` cannot change. Changing `redirectUris`, `grantTypes`, "
        "`token_endpoint_auth_method`, `jwks`, `jwks_uri` or `tokenExchangeAudiences`: "
        + _TAKEOVER_NOTE
        + " "
        + _ALG_NOTE
        + " `userinfo_signed_response_alg: null` returns userinfo to plain JSON. "
        + _ORIGINS_NOTE
        + " "
        + _DISABLED_NOTE
        + " The seeded `console` client cannot be disabled (422 naming `disabled`).",
    ),
)
async def update_client(request: Req, client_id: str, data: JSONBody[ClientUpdate]) -> ClientRead:
    changes = data.changes()
    check_signing_algs(request, {name: changes[name] for name in _ALG_FIELDS if name in changes})
    takeover = bool(_TAKEOVER_FIELDS & changes.keys())
    if takeover:
        await check_recent_secret(request)
    # A back-channel URI stored before the address rule existed is judged only when sent.
    allow = _allow_private(request) or "backchannel_logout_uri" not in changes
    allow_jwks = _allow_private_jwks(request) or "jwks_uri" not in changes
    async with writing(request) as write:
        if takeover:
            await check_may_take_over_client(request, write.session, client_id)
        client, changed = await repo.update_client(
            write.session,
            client_id,
            changes,
            check=partial(check_settings, allow_private=allow, allow_private_jwks=allow_jwks),
        )
        audiences = data.token_exchange_audiences
        if not isinstance(audiences, msgspec.UnsetType):  # after the shape checks; rolled back
            await check_exchange_audiences(write.session, audiences, own_api=_own_api(request))
        # the flag's value tells a disabling from an enabling (as for a person)
        flag = {"disabled": client.disabled} if "disabled" in changed else {}
        write.audit("client.update", client_id, fields=[_WIRE_NAMES[f] for f in changed], **flag)
        [client] = await branded_clients(write.session, [client], issuer_base=_issuer(request))
    await announce_client_change(request)
    return client


@delete(
    _CLIENT,
    **operation(
        "deleteClient",
        "Delete an OAuth client",
        WRITE,
        "Its secret, codes, refresh tokens and consents go with it. The seeded `console` "
        "client cannot be deleted (409).",
    ),
)
async def delete_client(request: Req, client_id: str) -> None:
    async with writing(request) as write:
        await repo.delete_client(write.session, client_id)
        write.audit("client.delete", client_id, status_code=204)
    await announce_client_change(request)


@post(
    f"{_CLIENT}/rotate-secret",
    status_code=HTTP_200_OK,
    **operation(
        "rotateClientSecret",
        "Replace a confidential client's secret",
        WRITE,
        "Answers the new `client_secret` (shown only here); the old one stops working. A "
        "`client_secret_jwt` client's new secret is also kept sealed with `SVC_SECRETS_KEY` "
        "(it is the HMAC key of its assertions): a client switched to `client_secret_jwt` "
        "by PATCH authenticates only once its secret was rotated. A "
        f"public client has no secret (409). {_TAKEOVER_NOTE}",
        sensitive=True,
    ),
)
async def rotate_secret(request: Req, client_id: str) -> SecretRotated:
    async with writing(request) as write:
        rotated = await repo.rotate_secret(
            write.session, client_id, secrets_key=_secrets_key(request, None)
        )
        await check_may_take_over_client(request, write.session, client_id)
        write.audit("client.rotate_secret", client_id)
    await announce_client_change(request)
    return rotated


@put(
    f"{_CLIENT}/scopes",
    **operation(
        "setClientScopes",
        "Replace the scopes a client may request",
        WRITE,
        "Every value must be an existing scope (422 naming `scopes[i]`). Needs a recent "
        "sign-in with the password or a one-time code, and adds only scopes the caller holds "
        "itself (else 403 `admin.scope_not_held`; the OpenID Connect scopes are free).",
        sensitive=True,
    ),
)
async def set_scopes(
    request: Req, client_id: str, data: JSONBody[ClientScopesUpdate]
) -> ClientRead:
    async with writing(request) as write:
        held = await caller_holds(request, write.session)
        client, added = await repo.set_client_scopes(write.session, client_id, data.scopes)
        await check_may_give(request, held, added, target=client_id)
        write.audit("client.set_scopes", client_id, scopes=client.scopes)
        [client] = await branded_clients(write.session, [client], issuer_base=_issuer(request))
    await announce_client_change(request)
    return client


_HANDLERS = [list_clients, create_client, get_client, update_client, delete_client]
ROUTES = [
    Router(
        path="/admin/clients",
        route_handlers=[*_HANDLERS, rotate_secret, set_scopes],
        tags=["clients"],
    )
]
