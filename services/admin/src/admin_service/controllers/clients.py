"""``/admin/clients``: register, read, change and delete OAuth clients (spec part 4
"Admin: clients", DESIGN.md "Wire contracts" → Clients).

The rules (URIs, grant types, the console client) live in :mod:`admin_service.store.clients`.
A client secret appears only in the answers of the creation and of ``rotate-secret``,
never in an audit row or a log.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, delete, get, patch, post, put
from litestar.params import JSONBody, Parameter
from litestar.status_codes import HTTP_200_OK, HTTP_204_NO_CONTENT
from redis.exceptions import RedisError

from admin_service.authority import (
    caller_holds,
    check_may_give,
    check_may_take_over_client,
    check_recent_secret,
    requires_sensitive,
)
from admin_service.store import clients as store
from idp_common.protocol.constants import (
    GRANT_TYPE_AUTHORIZATION_CODE,
    SCOPE_IDP_CLIENTS_READ,
    SCOPE_IDP_CLIENTS_WRITE,
)
from idp_common.state.change_stamp import CLIENTS, bump
from idp_common.storage.repos.paging import DEFAULT_LIMIT, MAX_LIMIT
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import requires

log = logging.getLogger("idp.admin.clients")

TARGET_TYPE = "client"
_READ = f"Needs `{SCOPE_IDP_CLIENTS_READ}`."
_WRITE = f"Needs `{SCOPE_IDP_CLIENTS_WRITE}`."


class ClientCreate(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    name: str
    type: store.ClientType
    redirect_uris: list[str] = msgspec.field(default_factory=list)
    post_logout_redirect_uris: list[str] = msgspec.field(default_factory=list)
    backchannel_logout_uri: str | None = None
    grant_types: list[str] = msgspec.field(default_factory=lambda: [GRANT_TYPE_AUTHORIZATION_CODE])
    skip_consent: bool = False


class ClientUpdate(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    """Members left out keep their value; ``backchannelLogoutUri: null`` clears it."""

    name: str | msgspec.UnsetType = msgspec.UNSET
    redirect_uris: list[str] | msgspec.UnsetType = msgspec.UNSET
    post_logout_redirect_uris: list[str] | msgspec.UnsetType = msgspec.UNSET
    backchannel_logout_uri: str | msgspec.UnsetType | None = msgspec.UNSET
    grant_types: list[str] | msgspec.UnsetType = msgspec.UNSET
    skip_consent: bool | msgspec.UnsetType = msgspec.UNSET

    def changes(self) -> dict[str, object]:
        return {
            f: v for f in self.__struct_fields__ if (v := getattr(self, f)) is not msgspec.UNSET
        }


_WIRE_NAMES = {f.name: f.encode_name for f in msgspec.structs.fields(ClientUpdate)}
#: Fields whose change lets the author act as the client (receive its codes, use a grant).
_TAKEOVER_FIELDS = frozenset({"redirect_uris", "grant_types"})
_TAKEOVER_NOTE = (
    "Needs a recent sign-in with the password or a one-time code, and a caller holding every "
    "scope the client has (else 403 `admin.scope_not_held`)."
)


class ClientScopesUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    scopes: list[str]


async def _tell_token_service(request: Request[Any, Any, Any]) -> None:
    """After the commit: token workers drop their cached clients (idp_common.state.change_stamp),
    so a rotated secret or a removed redirect URI stops working at once. If Redis cannot
    be told, the change still stands and reaches them when their cache expires (5 s)."""
    resources = resources_of(request)
    try:
        await bump(resources.redis, resources.settings.redis_prefix, CLIENTS)
    except (RedisError, OSError) as exc:
        log.error("could not announce a client change (%s)", type(exc).__name__)


class ClientsController(Controller):
    path = "/admin/clients"
    tags = ["clients"]

    @get(
        operation_id="listClients",
        summary="List OAuth clients (by client_id)",
        description=_READ,
        **requires(SCOPE_IDP_CLIENTS_READ),
    )
    async def list_clients(
        self,
        request: Request[Any, Any, Any],
        limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> store.ClientPage:
        async with resources_of(request).sessions() as session:
            return await store.list_clients(session, limit=limit, cursor=cursor)

    @post(
        operation_id="createClient",
        summary="Register an OAuth client",
        description=(
            f"{_WRITE} Answers the client with its generated `client_id` and, for a "
            "confidential client, its `client_secret`, shown only here and on rotate-secret. "
            "Redirect and logout URIs: absolute, no fragment, `https` (plain `http` only to "
            "127.0.0.1, [::1] or localhost). `backchannelLogoutUri` must not name a loopback, "
            "private, link-local or other non-global host unless the deployment allows it "
            "(`SVC_BACKCHANNEL_ALLOW_PRIVATE`). `grantTypes` defaults to `authorization_code`."
        ),
        **requires(SCOPE_IDP_CLIENTS_WRITE),
    )
    async def create_client(
        self, request: Request[Any, Any, Any], data: JSONBody[ClientCreate]
    ) -> store.ClientCreated:
        settings = store.ClientSettings(
            name=data.name,
            redirect_uris=data.redirect_uris,
            post_logout_redirect_uris=data.post_logout_redirect_uris,
            backchannel_logout_uri=data.backchannel_logout_uri,
            grant_types=data.grant_types,
            skip_consent=data.skip_consent,
        )
        resources = resources_of(request)
        async with resources.sessions.begin() as session:
            created = await store.create_client(
                session,
                data.type,
                settings,
                allow_private=resources.settings.backchannel_allow_private,
            )
            audit(
                request,
                session,
                action="client.create",
                target_type=TARGET_TYPE,
                target=created.client_id,
                status_code=201,
                detail={"type": data.type},
            )
        return created

    @get(
        "/{client_id:str}",
        operation_id="getClient",
        summary="Read an OAuth client (never its secret)",
        description=_READ,
        **requires(SCOPE_IDP_CLIENTS_READ),
    )
    async def get_client(self, request: Request[Any, Any, Any], client_id: str) -> store.ClientRead:
        async with resources_of(request).sessions() as session:
            return await store.get_client(session, client_id)

    @patch(
        "/{client_id:str}",
        operation_id="updateClient",
        summary="Change an OAuth client",
        description=(
            f"{_WRITE} Members left out keep their value; `backchannelLogoutUri: null` clears "
            "it. `client_id` and `type` cannot change. Changing `redirectUris` or "
            f"`grantTypes`: {_TAKEOVER_NOTE}"
        ),
        **requires(SCOPE_IDP_CLIENTS_WRITE),
    )
    async def update_client(
        self, request: Request[Any, Any, Any], client_id: str, data: JSONBody[ClientUpdate]
    ) -> store.ClientRead:
        resources = resources_of(request)
        takeover = bool(_TAKEOVER_FIELDS & data.changes().keys())
        if takeover:
            await check_recent_secret(request)
        async with resources.sessions.begin() as session:
            if takeover:
                await check_may_take_over_client(request, session, client_id)
            client, changed = await store.update_client(
                session,
                client_id,
                data.changes(),
                allow_private=resources.settings.backchannel_allow_private,
            )
            audit(
                request,
                session,
                action="client.update",
                target_type=TARGET_TYPE,
                target=client_id,
                detail={"fields": [_WIRE_NAMES[f] for f in changed]},
            )
        await _tell_token_service(request)
        return client

    @delete(
        "/{client_id:str}",
        operation_id="deleteClient",
        summary="Delete an OAuth client",
        description=(
            f"{_WRITE} Its secret, codes, refresh tokens and consents go with it. The seeded "
            "`console` client cannot be deleted (409)."
        ),
        status_code=HTTP_204_NO_CONTENT,
        **requires(SCOPE_IDP_CLIENTS_WRITE),
    )
    async def delete_client(self, request: Request[Any, Any, Any], client_id: str) -> None:
        async with resources_of(request).sessions.begin() as session:
            await store.delete_client(session, client_id)
            audit(
                request,
                session,
                action="client.delete",
                target_type=TARGET_TYPE,
                target=client_id,
                status_code=204,
            )
        await _tell_token_service(request)

    @post(
        "/{client_id:str}/rotate-secret",
        operation_id="rotateClientSecret",
        summary="Replace a confidential client's secret",
        description=(
            f"{_WRITE} Answers the new `client_secret` (shown only here); the old one stops "
            f"working. A public client has no secret (409). {_TAKEOVER_NOTE}"
        ),
        status_code=HTTP_200_OK,
        **requires_sensitive(SCOPE_IDP_CLIENTS_WRITE),
    )
    async def rotate_secret(
        self, request: Request[Any, Any, Any], client_id: str
    ) -> store.SecretRotated:
        async with resources_of(request).sessions.begin() as session:
            rotated = await store.rotate_secret(session, client_id)
            await check_may_take_over_client(request, session, client_id)
            audit(
                request,
                session,
                action="client.rotate_secret",
                target_type=TARGET_TYPE,
                target=client_id,
            )
        await _tell_token_service(request)
        return rotated

    @put(
        "/{client_id:str}/scopes",
        operation_id="setClientScopes",
        summary="Replace the scopes a client may request",
        description=f"{_WRITE} Every value must be an existing scope (422 naming `scopes[i]`). "
        "Needs a recent sign-in with the password or a one-time code, and adds only scopes the "
        "caller holds itself (else 403 `admin.scope_not_held`; the OpenID Connect scopes are "
        "free).",
        **requires_sensitive(SCOPE_IDP_CLIENTS_WRITE),
    )
    async def set_scopes(
        self, request: Request[Any, Any, Any], client_id: str, data: JSONBody[ClientScopesUpdate]
    ) -> store.ClientRead:
        async with resources_of(request).sessions.begin() as session:
            held = await caller_holds(request, session)
            client, added = await store.set_scopes(session, client_id, data.scopes)
            await check_may_give(request, held, added, target=client_id)
            audit(
                request,
                session,
                action="client.set_scopes",
                target_type=TARGET_TYPE,
                target=client_id,
                detail={"scopes": client.scopes},
            )
        await _tell_token_service(request)
        return client


ROUTES = [ClientsController]
