"""``/entity/connections``: the applications that have access to the caller's account, and
withdrawing one (contract §4 "Entity (self-service)"; docs/design.md "Sign-in").

Reads need ``idp:connections:read``, withdrawing ``idp:connections:write`` (audited
``connection.withdraw``). The list is :mod:`entity_service.repos.connections`; withdrawing
is the use case :mod:`entity_service.connections`.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, delete, get
from litestar.params import Parameter

from entity_service.connections import withdraw_connection
from entity_service.openapi_links import linked_list
from entity_service.person import person_key
from entity_service.repos import connections as store
from idp_common.protocol.constants import (
    SCOPE_IDP_CONNECTIONS_READ,
    SCOPE_IDP_CONNECTIONS_WRITE,
)
from idp_common.storage.repos.paging import DEFAULT_LIMIT, MAX_LIMIT
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.guard import current_caller, requires

Limit = Annotated[int, Parameter(ge=1, le=MAX_LIMIT)]


class ConnectionsController(Controller):
    path = "/entity/connections"
    tags = ["connections"]

    @get(
        operation_id="listOwnConnections",
        summary="List the applications that have access to your account (by clientId)",
        description=(
            f"Needs `{SCOPE_IDP_CONNECTIONS_READ}`. An application you approved, or a "
            "first-party one (`firstParty`, never asks) holding a live refresh token of yours."
        ),
        operation_class=linked_list("withdrawOwnConnection", "client_id", "clientId"),
        **requires(SCOPE_IDP_CONNECTIONS_READ),
    )
    async def list_connections(
        self,
        request: Request[Any, Any, Any],
        limit: Limit = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> store.ConnectionPage:
        user_id = person_key(current_caller(request).subject)
        async with resources_of(request).sessions() as session:
            return await store.list_connections(session, user_id, limit=limit, cursor=cursor)

    @delete(
        "/{client_id:str}",
        operation_id="withdrawOwnConnection",
        summary="Withdraw an application's access to your account",
        description=(
            f"Needs `{SCOPE_IDP_CONNECTIONS_WRITE}`. Your consent is withdrawn and the "
            "application's refresh tokens of yours are revoked; its next sign-in asks for "
            "consent again. 404 when the application is unknown or not connected."
        ),
        **requires(SCOPE_IDP_CONNECTIONS_WRITE),
    )
    async def withdraw(self, request: Request[Any, Any, Any], client_id: str) -> None:
        caller = current_caller(request).subject
        async with resources_of(request).sessions.begin() as session:
            await withdraw_connection(
                session, person_key(caller), client_id, actor=caller, ip=caller_ip(request)
            )


ROUTES = [ConnectionsController]
