"""``/admin/apis`` and ``/admin/scopes``: resource APIs and their scopes (spec part 4).

Reads need ``idp:apis:read``, writes ``idp:apis:write``; every write is audited
(``api.create`` ... ``scope.delete``). The rules live in :mod:`admin_service.store.apis`.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, delete, get, patch, post
from litestar.params import JSONBody, Parameter

from admin_service.store import apis as store
from admin_service.store.apis import ApiPage, ApiRead, ScopePage, ScopeRead
from idp_common.protocol.constants import SCOPE_IDP_APIS_READ, SCOPE_IDP_APIS_WRITE
from idp_common.storage.repos.paging import DEFAULT_LIMIT, MAX_LIMIT
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import requires

# ``name`` is the first segment of every scope value of the API, so it has the same alphabet.
Name = Annotated[
    str,
    msgspec.Meta(pattern=r"^[a-z0-9._-]+$", max_length=64, description="lowercase a-z 0-9 . _ -"),
]
Audience = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^\S+$", max_length=255, description="the `aud` of its tokens; no whitespace"
    ),
]
ScopeValue = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[a-z0-9._-]+:[a-z0-9._-]+:[a-z0-9._-]+$",
        max_length=255,
        description="`<api name>:<resource>:<action>`, lowercase a-z 0-9 . _ -",
    ),
]
Description = Annotated[
    str,
    msgspec.Meta(pattern=r"\S", max_length=500, description="the consent-screen sentence"),
]
Limit = Annotated[int, Parameter(ge=1, le=MAX_LIMIT)]


class ApiCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: Name
    audience: Audience


class ApiPatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: Name | msgspec.UnsetType = msgspec.UNSET
    audience: Audience | msgspec.UnsetType = msgspec.UNSET


class ScopeCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    value: ScopeValue
    description: Description


class ScopePatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    description: Description


class ApisController(Controller):
    path = "/admin/apis"
    tags = ["apis"]

    @get(
        operation_id="listApis",
        summary="List resource APIs (by name)",
        description=f"Needs `{SCOPE_IDP_APIS_READ}`.",
        **requires(SCOPE_IDP_APIS_READ),
    )
    async def list_apis(
        self,
        request: Request[Any, Any, Any],
        limit: Limit = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> ApiPage:
        async with resources_of(request).sessions() as session:
            return await store.list_apis(session, limit=limit, cursor=cursor)

    @post(
        operation_id="createApi",
        summary="Register a resource API",
        description=f"Needs `{SCOPE_IDP_APIS_WRITE}`. `name` and `audience` are unique (409).",
        **requires(SCOPE_IDP_APIS_WRITE),
    )
    async def create_api(
        self, request: Request[Any, Any, Any], data: JSONBody[ApiCreate]
    ) -> ApiRead:
        async with resources_of(request).sessions.begin() as session:
            row = await store.create_api(session, name=data.name, audience=data.audience)
            audit(
                request,
                session,
                action="api.create",
                target_type="api",
                target=str(row.id),
                status_code=201,
                detail={"name": row.name},
            )
            return store.api_read(row)

    @get(
        "/{api_id:str}",
        operation_id="getApi",
        summary="Read a resource API",
        description=f"Needs `{SCOPE_IDP_APIS_READ}`.",
        **requires(SCOPE_IDP_APIS_READ),
    )
    async def get_api(self, request: Request[Any, Any, Any], api_id: str) -> ApiRead:
        async with resources_of(request).sessions() as session:
            return store.api_read(await store.get_api(session, store.parse_id(api_id, "api")))

    @patch(
        "/{api_id:str}",
        operation_id="updateApi",
        summary="Rename a resource API or change its audience",
        description=(
            f"Needs `{SCOPE_IDP_APIS_WRITE}`. The provider's own API (`idp`) and an API that "
            "has scopes keep their name (409)."
        ),
        **requires(SCOPE_IDP_APIS_WRITE),
    )
    async def update_api(
        self, request: Request[Any, Any, Any], api_id: str, data: JSONBody[ApiPatch]
    ) -> ApiRead:
        async with resources_of(request).sessions.begin() as session:
            row, changed = await store.update_api(
                session,
                store.parse_id(api_id, "api"),
                name=data.name or None,
                audience=data.audience or None,
            )
            audit(
                request,
                session,
                action="api.update",
                target_type="api",
                target=str(row.id),
                detail={"fields": changed},
            )
            return store.api_read(row)

    @delete(
        "/{api_id:str}",
        operation_id="deleteApi",
        summary="Delete a resource API, its scopes and every grant of them",
        description=f"Needs `{SCOPE_IDP_APIS_WRITE}`. The provider's own API is kept (409).",
        **requires(SCOPE_IDP_APIS_WRITE),
    )
    async def delete_api(self, request: Request[Any, Any, Any], api_id: str) -> None:
        async with resources_of(request).sessions.begin() as session:
            row = await store.delete_api(session, store.parse_id(api_id, "api"))
            audit(
                request,
                session,
                action="api.delete",
                target_type="api",
                target=str(row.id),
                status_code=204,
                detail={"name": row.name},
            )

    @get(
        "/{api_id:str}/scopes",
        operation_id="listApiScopes",
        summary="List the scopes of a resource API (by value)",
        description=f"Needs `{SCOPE_IDP_APIS_READ}`.",
        **requires(SCOPE_IDP_APIS_READ),
    )
    async def list_scopes(
        self,
        request: Request[Any, Any, Any],
        api_id: str,
        limit: Limit = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> ScopePage:
        async with resources_of(request).sessions() as session:
            return await store.list_scopes(
                session, store.parse_id(api_id, "api"), limit=limit, cursor=cursor
            )

    @post(
        "/{api_id:str}/scopes",
        operation_id="createApiScope",
        summary="Add a scope to a resource API",
        description=(
            f"Needs `{SCOPE_IDP_APIS_WRITE}`. `value` is `<api name>:<resource>:<action>` "
            "(422 otherwise) and unique (409); `description` is required."
        ),
        **requires(SCOPE_IDP_APIS_WRITE),
    )
    async def create_scope(
        self, request: Request[Any, Any, Any], api_id: str, data: JSONBody[ScopeCreate]
    ) -> ScopeRead:
        async with resources_of(request).sessions.begin() as session:
            row = await store.create_scope(
                session,
                store.parse_id(api_id, "api"),
                value=data.value,
                description=data.description,
            )
            audit(
                request,
                session,
                action="scope.create",
                target_type="scope",
                target=str(row.id),
                status_code=201,
                detail={"value": row.value},
            )
            return store.scope_read(row)


class ScopesController(Controller):
    path = "/admin/scopes"
    tags = ["apis"]

    @get(
        "/{scope_id:str}",
        operation_id="getScope",
        summary="Read a scope",
        description=f"Needs `{SCOPE_IDP_APIS_READ}`.",
        **requires(SCOPE_IDP_APIS_READ),
    )
    async def get_scope(self, request: Request[Any, Any, Any], scope_id: str) -> ScopeRead:
        async with resources_of(request).sessions() as session:
            row = await store.get_scope(session, store.parse_id(scope_id, "scope"))
            return store.scope_read(row)

    @patch(
        "/{scope_id:str}",
        operation_id="updateScope",
        summary="Change the description of a scope",
        description=(
            f"Needs `{SCOPE_IDP_APIS_WRITE}`. Only `description` changes; standard OpenID "
            "Connect scopes are fixed (409)."
        ),
        **requires(SCOPE_IDP_APIS_WRITE),
    )
    async def update_scope(
        self, request: Request[Any, Any, Any], scope_id: str, data: JSONBody[ScopePatch]
    ) -> ScopeRead:
        async with resources_of(request).sessions.begin() as session:
            row = await store.update_scope(
                session, store.parse_id(scope_id, "scope"), description=data.description
            )
            audit(
                request,
                session,
                action="scope.update",
                target_type="scope",
                target=str(row.id),
                detail={"fields": ["description"]},
            )
            return store.scope_read(row)

    @delete(
        "/{scope_id:str}",
        operation_id="deleteScope",
        summary="Delete a scope and every grant of it",
        description=(
            f"Needs `{SCOPE_IDP_APIS_WRITE}`. Standard OpenID Connect scopes and the "
            "provider's own `idp:*` permissions are kept (409)."
        ),
        **requires(SCOPE_IDP_APIS_WRITE),
    )
    async def delete_scope(self, request: Request[Any, Any, Any], scope_id: str) -> None:
        async with resources_of(request).sessions.begin() as session:
            row = await store.delete_scope(session, store.parse_id(scope_id, "scope"))
            audit(
                request,
                session,
                action="scope.delete",
                target_type="scope",
                target=str(row.id),
                status_code=204,
                detail={"value": row.value},
            )


ROUTES = [ApisController, ScopesController]
