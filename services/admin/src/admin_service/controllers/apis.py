"""``/admin/apis`` and ``/admin/scopes``: resource APIs and their scopes (contract §4).

Reads need ``idp:apis:read``, writes ``idp:apis:write``; every write is audited
(``api.create`` ... ``scope.delete``). The rules live in :mod:`idp_common.storage.repos.apis`.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Router, delete, get, patch, post
from litestar.params import JSONBody

from admin_service.client_stamp import announce_client_change
from admin_service.routes import Limit, Req, operation, reading, writing
from admin_service.signing_algs import check_signing_algs
from idp_common.protocol.constants import (
    SCOPE_IDP_APIS_READ,
    SCOPE_IDP_APIS_WRITE,
    SIGNING_ALGORITHM,
)
from idp_common.storage.repos import apis as repo
from idp_common.storage.repos.apis import ApiRead, ScopeRead
from idp_common.storage.repos.paging import DEFAULT_LIMIT, Page

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
READ, WRITE = SCOPE_IDP_APIS_READ, SCOPE_IDP_APIS_WRITE
_API = "/{api_id:str}"
_SCOPE = "/{scope_id:str}"


#: The wire name of the access-token algorithm.
ALG_FIELD = "accessTokenSigningAlg"
_WIRE = {"access_token_signing_alg": ALG_FIELD}
_ALG_DOC = (
    "`accessTokenSigningAlg` (default `RS256`) signs the access tokens for the API's "
    "audience: `RS256`, `PS256`, `ES256` or `EdDSA`, one the provider holds a key for, "
    "else 400 naming the field."
)


class ApiCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: Name
    audience: Audience
    access_token_signing_alg: str = SIGNING_ALGORITHM


class ApiPatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: Name | msgspec.UnsetType = msgspec.UNSET
    audience: Audience | msgspec.UnsetType = msgspec.UNSET
    access_token_signing_alg: str | msgspec.UnsetType = msgspec.UNSET


class ScopeCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    value: ScopeValue
    description: Description


class ScopePatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    description: Description


@get(**operation("listApis", "List resource APIs (by name)", READ))
async def list_apis(
    request: Req, limit: Limit = DEFAULT_LIMIT, cursor: str | None = None
) -> Page[ApiRead]:
    async with reading(request) as session:
        return await repo.list_apis(session, limit=limit, cursor=cursor)


@post(
    **operation(
        "createApi",
        "Register a resource API",
        WRITE,
        "`name` and `audience` are unique (409). " + _ALG_DOC,
    )
)
async def create_api(request: Req, data: JSONBody[ApiCreate]) -> ApiRead:
    check_signing_algs(request, {ALG_FIELD: data.access_token_signing_alg})
    async with writing(request) as write:
        api = await repo.create_api(
            write.session,
            name=data.name,
            audience=data.audience,
            access_token_signing_alg=data.access_token_signing_alg,
        )
        write.audit("api.create", api.id, status_code=201, name=api.name)
    return api


@get(_API, **operation("getApi", "Read a resource API", READ))
async def get_api(request: Req, api_id: str) -> ApiRead:
    async with reading(request) as session:
        return await repo.get_api(session, api_id)


@patch(
    _API,
    **operation(
        "updateApi",
        "Rename a resource API, change its audience or its tokens' signing algorithm",
        WRITE,
        "The provider's own API (`idp`) keeps its name, audience and RS256 (409); an API "
        "that has scopes keeps its name (409). " + _ALG_DOC + " A changed algorithm signs "
        "new tokens within 30 s (the token service's cache of the scope→API mapping).",
    ),
)
async def update_api(request: Req, api_id: str, data: JSONBody[ApiPatch]) -> ApiRead:
    alg = data.access_token_signing_alg or None
    if alg is not None:
        check_signing_algs(request, {ALG_FIELD: alg})
    async with writing(request) as write:
        name, audience = data.name or None, data.audience or None
        api, changed = await repo.update_api(
            write.session, api_id, name=name, audience=audience, access_token_signing_alg=alg
        )
        write.audit("api.update", api.id, fields=[_WIRE.get(f, f) for f in changed])
    return api


@delete(
    _API,
    **operation(
        "deleteApi",
        "Delete a resource API, its scopes and every grant of them",
        WRITE,
        "The provider's own API is kept (409).",
    ),
)
async def delete_api(request: Req, api_id: str) -> None:
    async with writing(request) as write:
        api = await repo.delete_api(write.session, api_id)
        write.audit("api.delete", api.id, status_code=204, name=api.name)
    await announce_client_change(request)  # its clients lost its scopes: their tokens stop


@get(
    f"{_API}/scopes",
    **operation("listApiScopes", "List the scopes of a resource API (by value)", READ),
)
async def list_scopes(
    request: Req, api_id: str, limit: Limit = DEFAULT_LIMIT, cursor: str | None = None
) -> Page[ScopeRead]:
    async with reading(request) as session:
        return await repo.list_scopes(session, api_id, limit=limit, cursor=cursor)


@post(
    f"{_API}/scopes",
    **operation(
        "createApiScope",
        "Add a scope to a resource API",
        WRITE,
        "`value` is `<api name>:<resource>:<action>` (422 otherwise) and unique (409); "
        "`description` is required.",
    ),
)
async def create_scope(request: Req, api_id: str, data: JSONBody[ScopeCreate]) -> ScopeRead:
    async with writing(request) as write:
        scope = await repo.create_scope(
            write.session, api_id, value=data.value, description=data.description
        )
        write.audit("scope.create", scope.id, status_code=201, value=scope.value)
    return scope


@get(_SCOPE, **operation("getScope", "Read a scope", READ))
async def get_scope(request: Req, scope_id: str) -> ScopeRead:
    async with reading(request) as session:
        return await repo.get_scope(session, scope_id)


@patch(
    _SCOPE,
    **operation(
        "updateScope",
        "Change the description of a scope",
        WRITE,
        "Only `description` changes; standard OpenID Connect scopes are fixed (409).",
    ),
)
async def update_scope(request: Req, scope_id: str, data: JSONBody[ScopePatch]) -> ScopeRead:
    async with writing(request) as write:
        scope = await repo.update_scope(write.session, scope_id, description=data.description)
        write.audit("scope.update", scope.id, fields=["description"])
    return scope


@delete(
    _SCOPE,
    **operation(
        "deleteScope",
        "Delete a scope and every grant of it",
        WRITE,
        "Standard OpenID Connect scopes and the provider's own `idp:*` permissions are kept (409).",
    ),
)
async def delete_scope(request: Req, scope_id: str) -> None:
    async with writing(request) as write:
        scope = await repo.delete_scope(write.session, scope_id)
        write.audit("scope.delete", scope.id, status_code=204, value=scope.value)
    await announce_client_change(request)  # clients lost it: tokens holding it stop


_API_ROUTES = [list_apis, create_api, get_api, update_api, delete_api, list_scopes, create_scope]
ROUTES = [
    Router(path="/admin/apis", route_handlers=_API_ROUTES, tags=["apis"]),
    Router(
        path="/admin/scopes", route_handlers=[get_scope, update_scope, delete_scope], tags=["apis"]
    ),
]
