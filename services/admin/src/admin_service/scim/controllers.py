"""The routes of ``/scim/v2`` (RFC 7644 §3), one router with the SCIM error mapping.

Reads need ``idp:scim:read``, writes ``idp:scim:write`` (the bearer guard of the admin
API; its 401/403 are SCIM error bodies here). Bodies are read as JSON whatever the
content type (``application/scim+json`` or ``application/json``); answers are
``application/scim+json``. Any other path under ``/scim/v2`` is a SCIM 404.
"""

from __future__ import annotations

from typing import Any, Literal

from litestar import Router, delete, get, patch, post, put, route
from litestar.response import Response

from admin_service.routes import reading
from admin_service.scim import bulk as bulk_ops
from admin_service.scim import listing, resources
from admin_service.scim.http import (
    PREFIX,
    Req,
    base_url,
    error_response,
    exception_handlers,
    not_modified,
    scim_response,
)
from admin_service.scim.rfc7643_schema import (
    MESSAGE_LIST_RESPONSE,
    MESSAGE_SEARCH_REQUEST,
    ResourceSchema,
)
from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.schemas import (
    GROUP_RESOURCE_SCHEMA,
    GROUP_SCHEMA,
    USER_SCHEMA,
    profile_extension,
    resource_types,
    schema_document,
    service_provider_config,
)
from idp_common.protocol.constants import SCOPE_IDP_SCIM_READ as READ
from idp_common.protocol.constants import SCOPE_IDP_SCIM_WRITE as WRITE
from idp_common.web.guard import requires

_DOCS = "https://github.com/idp/idp/blob/main/docs/scim.md"


def _guarded(permission: str) -> dict[str, Any]:
    return {**requires(permission), "include_in_schema": False}


async def _body(request: Req) -> dict[str, Any]:
    body = await request.json()
    if not isinstance(body, dict):
        raise ScimError(400, "the body must be a JSON object", "invalidSyntax")
    return body


def _query(request: Req) -> listing.Query:
    return listing.query_of(dict(request.query_params))


def _shown(request: Req, document: dict[str, Any], schema: ResourceSchema) -> dict[str, Any]:
    query = _query(request)
    return listing.selected(document, schema, query.attributes, query.excluded)


def _answer(
    request: Req, document: dict[str, Any], schema: ResourceSchema, status: int = 200
) -> Response[Any]:
    """The resource as the query's ``attributes``/``excludedAttributes`` ask, with its
    ``ETag`` (and ``Location`` when created: RFC 7644 §3.3)."""
    meta = document["meta"]
    headers = {"ETag": meta["version"]}
    if status == 201:
        headers["Location"] = meta["location"]
    return scim_response(_shown(request, document, schema), status, headers)


def _not_modified(version: str) -> Response[Any]:
    return Response(b"", status_code=304, headers={"ETag": version})


def _list_of(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schemas": [MESSAGE_LIST_RESPONSE],
        "totalResults": len(items),
        "startIndex": 1,
        "itemsPerPage": len(items),
        "Resources": items,
    }


# --- discovery (RFC 7644 §4) -----------------------------------------------------------------


@get("/ServiceProviderConfig", **_guarded(READ))
async def provider_config(request: Req) -> Response[Any]:
    return scim_response(service_provider_config(base_url(request), _DOCS))


@get("/ResourceTypes", **_guarded(READ))
async def list_resource_types(request: Req) -> Response[Any]:
    return scim_response(_list_of(resource_types(base_url(request))))


@get("/ResourceTypes/{name:str}", **_guarded(READ))
async def get_resource_type(request: Req, name: str) -> Response[Any]:
    found = [t for t in resource_types(base_url(request)) if t["id"] == name]
    if not found:
        raise ScimError(404, f"no resource type {name!r}")
    return scim_response(found[0])


async def _schemas(request: Req) -> list[dict[str, Any]]:
    async with reading(request) as session:
        fields = await resources.all_fields(session)
    base = base_url(request)
    return [
        schema_document(s, base) for s in (USER_SCHEMA, GROUP_SCHEMA, profile_extension(fields))
    ]


@get("/Schemas", **_guarded(READ))
async def list_schemas(request: Req) -> Response[Any]:
    return scim_response(_list_of(await _schemas(request)))


@get("/Schemas/{schema_id:str}", **_guarded(READ))
async def get_schema(request: Req, schema_id: str) -> Response[Any]:
    found = [s for s in await _schemas(request) if s["id"].lower() == schema_id.lower()]
    if not found:
        raise ScimError(404, f"no schema {schema_id!r}")
    return scim_response(found[0])


# --- Users ---------------------------------------------------------------------------------------


@get("/Users", **_guarded(READ))
async def list_users(request: Req) -> Response[Any]:
    return scim_response(await listing.list_users(request, _query(request)))


def _search_body(body: dict[str, Any]) -> listing.Query:
    schemas = body.get("schemas")
    if not isinstance(schemas, list) or MESSAGE_SEARCH_REQUEST not in schemas:
        raise ScimError(400, f"schemas: must list {MESSAGE_SEARCH_REQUEST}", "invalidSyntax")
    return listing.query_of(body)


@post("/Users/.search", status_code=200, **_guarded(READ))
async def search_users(request: Req) -> Response[Any]:
    query = _search_body(await _body(request))
    return scim_response(await listing.list_users(request, query))


async def _user_schema(request: Req) -> ResourceSchema:
    async with reading(request) as session:
        schema, _ = await resources.user_schema(session)
    return schema


@post("/Users", **_guarded(WRITE))
async def create_user(request: Req) -> Response[Any]:
    document = await resources.create_user(request, await _body(request))
    return _answer(request, document, await _user_schema(request), 201)


@get("/Users/{user_id:str}", **_guarded(READ))
async def get_user(request: Req, user_id: str) -> Response[Any]:
    document = await resources.read_user(request, user_id)
    if not_modified(request, document["meta"]["version"]):
        return _not_modified(document["meta"]["version"])
    return _answer(request, document, await _user_schema(request))


@put("/Users/{user_id:str}", **_guarded(WRITE))
async def replace_user(request: Req, user_id: str) -> Response[Any]:
    body = await _body(request)
    document = await resources.change_user(
        request, user_id, lambda _, __: body, patch=False, if_match=request.headers.get("if-match")
    )
    return _answer(request, document, await _user_schema(request))


@patch("/Users/{user_id:str}", **_guarded(WRITE))
async def patch_user(request: Req, user_id: str) -> Response[Any]:
    change = resources.patch_change(await _body(request))
    document = await resources.change_user(
        request,
        user_id,
        change,
        patch=True,
        if_match=request.headers.get("if-match"),
    )
    return _answer(request, document, await _user_schema(request))


@delete("/Users/{user_id:str}", status_code=204, **_guarded(WRITE))
async def delete_user(request: Req, user_id: str) -> None:
    await resources.delete_user(request, user_id, if_match=request.headers.get("if-match"))


# --- Groups --------------------------------------------------------------------------------------


@get("/Groups", **_guarded(READ))
async def list_groups(request: Req) -> Response[Any]:
    return scim_response(await listing.list_groups(request, _query(request)))


@post("/Groups/.search", status_code=200, **_guarded(READ))
async def search_groups(request: Req) -> Response[Any]:
    query = _search_body(await _body(request))
    return scim_response(await listing.list_groups(request, query))


@post("/Groups", **_guarded(WRITE))
async def create_group(request: Req) -> Response[Any]:
    document = await resources.create_group(request, await _body(request))
    return _answer(request, document, GROUP_RESOURCE_SCHEMA, 201)


@get("/Groups/{group_id:str}", **_guarded(READ))
async def get_group(request: Req, group_id: str) -> Response[Any]:
    document = await resources.read_group(request, group_id)
    if not_modified(request, document["meta"]["version"]):
        return _not_modified(document["meta"]["version"])
    return _answer(request, document, GROUP_RESOURCE_SCHEMA)


@put("/Groups/{group_id:str}", **_guarded(WRITE))
async def replace_group(request: Req, group_id: str) -> Response[Any]:
    body = await _body(request)
    document = await resources.change_group(
        request, group_id, lambda _, __: body, if_match=request.headers.get("if-match")
    )
    return _answer(request, document, GROUP_RESOURCE_SCHEMA)


@patch("/Groups/{group_id:str}", **_guarded(WRITE))
async def patch_group(request: Req, group_id: str) -> Response[Any]:
    document = await resources.change_group(
        request,
        group_id,
        resources.patch_change(await _body(request)),
        if_match=request.headers.get("if-match"),
    )
    return _answer(request, document, GROUP_RESOURCE_SCHEMA)


@delete("/Groups/{group_id:str}", status_code=204, **_guarded(WRITE))
async def delete_group(request: Req, group_id: str) -> None:
    await resources.delete_group(request, group_id, if_match=request.headers.get("if-match"))


# --- Bulk and the rest -------------------------------------------------------------------------


@post("/Bulk", status_code=200, **_guarded(WRITE))
async def bulk(request: Req) -> Response[Any]:
    return scim_response(await bulk_ops.bulk(request, await request.body()))


@route(
    ["/", "/{rest:path}"],
    http_method=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def not_found(request: Req) -> None:
    raise ScimError(404, f"no SCIM endpoint at {request.url.path}")


Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
_METHODS: tuple[Method, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE")
#: Each path and its methods: any other method is a SCIM 405 naming them (``Allow``).
_ALLOWED: dict[str, tuple[Method, ...]] = {
    "/ServiceProviderConfig": ("GET",),
    "/ResourceTypes": ("GET",),
    "/ResourceTypes/{name:str}": ("GET",),
    "/Schemas": ("GET",),
    "/Schemas/{schema_id:str}": ("GET",),
    "/Users": ("GET", "POST"),
    "/Users/.search": ("POST",),
    "/Users/{user_id:str}": ("GET", "PUT", "PATCH", "DELETE"),
    "/Groups": ("GET", "POST"),
    "/Groups/.search": ("POST",),
    "/Groups/{group_id:str}": ("GET", "PUT", "PATCH", "DELETE"),
    "/Bulk": ("POST",),
}


def _not_allowed(path: str, allowed: tuple[Method, ...]) -> Any:
    async def refuse() -> Response[Any]:
        error = ScimError(405, f"{path.split('{', maxsplit=1)[0]}: only {', '.join(allowed)}")
        return error_response(error, {"Allow": ", ".join(allowed)})

    others = [m for m in _METHODS if m not in allowed]
    return route(
        path, http_method=others, status_code=405, include_in_schema=False, name=f"405 {path}"
    )(refuse)


ROUTER = Router(
    path=PREFIX,
    route_handlers=[
        provider_config,
        list_resource_types,
        get_resource_type,
        list_schemas,
        get_schema,
        list_users,
        search_users,
        create_user,
        get_user,
        replace_user,
        patch_user,
        delete_user,
        list_groups,
        search_groups,
        create_group,
        get_group,
        replace_group,
        patch_group,
        delete_group,
        bulk,
        not_found,
        *(_not_allowed(path, allowed) for path, allowed in _ALLOWED.items()),
    ],
    exception_handlers=exception_handlers(),
)
