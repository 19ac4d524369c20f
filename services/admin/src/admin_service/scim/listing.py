"""Queries (RFC 7644 §3.4.2, §3.4.3): ``filter``, ``sortBy``/``sortOrder``,
``startIndex``/``count`` and ``attributes``/``excludedAttributes``, from the query string
of ``GET /Users`` or the body of ``POST /Users/.search``.

Filters and the order run in PostgreSQL (:mod:`admin_service.repos.scim_filters`);
paging is by offset, 1-based, with ``totalResults`` the count of every match. ``count``
above :data:`MAX_RESULTS` is cut down to it; ``count=0`` answers only the total.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from admin_service.repos import scim_resources as rows
from admin_service.repos.scim_filters import (
    group_filter,
    group_sort_key,
    user_filter,
    user_sort_key,
)
from admin_service.routes import reading
from admin_service.scim import resources
from admin_service.scim.http import Req
from admin_service.scim.rfc7643_schema import MESSAGE_LIST_RESPONSE, ResourceSchema
from admin_service.scim.rfc7644_attributes import select_attributes
from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.rfc7644_filter import parse_attr_path, parse_filter
from admin_service.scim.schemas import DEFAULT_COUNT, GROUP_RESOURCE_SCHEMA, MAX_RESULTS

_MAX_ATTRIBUTES_TEXT = 2000


class Query(msgspec.Struct, kw_only=True):
    filter: str | None = None
    sort_by: str | None = None
    descending: bool = False
    start_index: int = 1
    count: int = DEFAULT_COUNT
    attributes: list[str] | None = None
    excluded: list[str] | None = None


def _names(raw: Any, name: str) -> list[str] | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        if len(raw) > _MAX_ATTRIBUTES_TEXT:
            raise ScimError(400, f"{name}: too long", "invalidValue")
        return [a.strip() for a in raw.split(",") if a.strip()] or None
    if isinstance(raw, list) and all(isinstance(a, str) for a in raw):
        return [a.strip() for a in raw if a.strip()] or None
    raise ScimError(400, f"{name}: must be a list of attribute names", "invalidValue")


def _integer(raw: Any, name: str, default: int) -> int:
    if raw is None:
        return default
    if isinstance(raw, bool):
        raise ScimError(400, f"{name}: must be an integer", "invalidValue")
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ScimError(400, f"{name}: must be an integer", "invalidValue") from None


def query_of(params: Mapping[str, Any]) -> Query:
    """A query from the query string or a SearchRequest body (RFC 7644 §3.4.3)."""
    order = params.get("sortOrder")
    if order is not None and str(order).lower() not in ("ascending", "descending"):
        raise ScimError(400, "sortOrder: ascending or descending", "invalidValue")
    filter_text = params.get("filter")
    sort_by = params.get("sortBy")
    if filter_text is not None and not isinstance(filter_text, str):
        raise ScimError(400, "filter: must be a string", "invalidFilter")
    if sort_by is not None and not isinstance(sort_by, str):
        raise ScimError(400, "sortBy: must be an attribute name", "invalidValue")
    return Query(
        filter=filter_text or None,
        sort_by=sort_by or None,
        descending=order is not None and str(order).lower() == "descending",
        start_index=max(1, _integer(params.get("startIndex"), "startIndex", 1)),
        count=min(MAX_RESULTS, max(0, _integer(params.get("count"), "count", DEFAULT_COUNT))),
        attributes=_names(params.get("attributes"), "attributes"),
        excluded=_names(params.get("excludedAttributes"), "excludedAttributes"),
    )


def selected(
    document: dict[str, Any],
    schema: ResourceSchema,
    attributes: Sequence[str] | None,
    excluded: Sequence[str] | None,
) -> dict[str, Any]:
    if attributes is None and excluded is None:
        return document
    return select_attributes(document, schema, attributes=attributes, excluded=excluded)


def _list(total: int, start: int, found: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schemas": [MESSAGE_LIST_RESPONSE],
        "totalResults": total,
        "startIndex": start,
        "itemsPerPage": len(found),
        "Resources": found,
    }


async def list_users(request: Req, query: Query) -> dict[str, Any]:
    async with reading(request) as session:
        schema, fields = await resources.user_schema(session)
        where = None if query.filter is None else user_filter(parse_filter(query.filter), fields)
        order = []
        if query.sort_by is not None:
            key = user_sort_key(parse_attr_path(query.sort_by), fields)
            order.append(key.desc() if query.descending else key.asc())
        total, found = await rows.page_users(
            session, where, order, offset=query.start_index - 1, limit=query.count
        )
        documents = await resources.user_documents(request, session, found, fields)
    shown = [selected(d, schema, query.attributes, query.excluded) for d in documents]
    return _list(total, query.start_index, shown)


async def list_groups(request: Req, query: Query) -> dict[str, Any]:
    async with reading(request) as session:
        where = None if query.filter is None else group_filter(parse_filter(query.filter))
        order = []
        if query.sort_by is not None:
            key = group_sort_key(parse_attr_path(query.sort_by))
            order.append(key.desc() if query.descending else key.asc())
        total, found = await rows.page_groups(
            session, where, order, offset=query.start_index - 1, limit=query.count
        )
        documents = await resources.group_documents(request, session, found)
    schema = GROUP_RESOURCE_SCHEMA
    shown = [selected(d, schema, query.attributes, query.excluded) for d in documents]
    return _list(total, query.start_index, shown)
