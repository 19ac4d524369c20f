"""``/entity/permissions``: what the caller is allowed to do (contract §4 "Entity
(self-service)"): every scope the caller holds and where each comes from, the same
answer as the admin API's ``GET /admin/users/{user_id}/effective-scopes`` (one
explanation, :func:`idp_common.storage.repos.permissions.list_scope_sources`)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Request, get

from entity_service.own import READ, operation
from entity_service.person import person_id
from idp_common.storage.repos.permissions import EffectiveScope, list_scope_sources
from idp_common.web.caller import resources_of
from idp_common.web.guard import current_caller


class PermissionsRead(msgspec.Struct, frozen=True):
    items: list[EffectiveScope]


class PermissionsController(Controller):
    path = "/entity/permissions"
    tags = ["permissions"]

    @get(
        **operation(
            "getOwnPermissions",
            "Your permissions: every scope you hold and where it comes from",
            READ,
            "Sources: `direct`, `role`, `group` (through a role of the group) and `default` (the "
            "self-service scopes every person holds). An application's token carries only those "
            "of them it was granted.",
        ),
    )
    async def read_permissions(self, request: Request[Any, Any, Any]) -> PermissionsRead:
        async with resources_of(request).sessions() as session:
            person = await person_id(session, current_caller(request).subject)
            return PermissionsRead(items=await list_scope_sources(session, person))


ROUTES = [PermissionsController]
