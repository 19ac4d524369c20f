"""``/admin/roles``: roles and the permissions they hold (spec part 4 "Admin: roles").

The seeded ``administrator`` role cannot be renamed or deleted (409); its scopes can be
replaced like any role's.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, delete, get, patch, post, put
from litestar.params import JSONBody, Parameter

from admin_service.authority import caller_holds, check_may_give, requires_sensitive
from admin_service.store import roles as store
from idp_common.protocol.constants import SCOPE_IDP_ROLES_READ, SCOPE_IDP_ROLES_WRITE
from idp_common.storage.repos.paging import DEFAULT_LIMIT, MAX_LIMIT, Page
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import requires

Name = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=200,
        pattern=r"\S",
        description="Unique; not blank; surrounding spaces are dropped.",
    ),
]
Description = Annotated[str, msgspec.Meta(max_length=2000)]
Limit = Annotated[int, Parameter(ge=1, le=MAX_LIMIT)]


class RoleCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: Name
    description: Description = ""


class RoleUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Members left out (or null) keep their value."""

    name: Name | None = None
    description: Description | None = None


class RoleScopesReplace(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    scopes: list[str]


def strip_name(name: str | None) -> str | None:
    return None if name is None else name.strip()


class RolesController(Controller):
    path = "/admin/roles"
    tags = ["roles"]

    @get(
        operation_id="listRoles",
        summary="List roles (by name)",
        description=f"Needs `{SCOPE_IDP_ROLES_READ}`.",
        **requires(SCOPE_IDP_ROLES_READ),
    )
    async def list_roles(
        self,
        request: Request[Any, Any, Any],
        limit: Limit = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> Page[store.RoleRead]:
        async with resources_of(request).sessions() as session:
            return await store.list_roles(session, limit=limit, cursor=cursor)

    @post(
        operation_id="createRole",
        summary="Create a role",
        description=f"Needs `{SCOPE_IDP_ROLES_WRITE}`. A taken name is 409.",
        **requires(SCOPE_IDP_ROLES_WRITE),
    )
    async def create_role(
        self, request: Request[Any, Any, Any], data: JSONBody[RoleCreate]
    ) -> store.RoleRead:
        async with resources_of(request).sessions.begin() as session:
            role = await store.create_role(
                session, name=data.name.strip(), description=data.description
            )
            audit(
                request,
                session,
                action="role.create",
                target_type="role",
                target=str(role.id),
                status_code=201,
            )
        return role

    @get(
        "/{role_id:str}",
        operation_id="getRole",
        summary="Read a role",
        description=f"Needs `{SCOPE_IDP_ROLES_READ}`.",
        **requires(SCOPE_IDP_ROLES_READ),
    )
    async def get_role(self, request: Request[Any, Any, Any], role_id: str) -> store.RoleRead:
        async with resources_of(request).sessions() as session:
            return await store.get_role(session, role_id)

    @patch(
        "/{role_id:str}",
        operation_id="updateRole",
        summary="Rename or describe a role",
        description=(
            f"Needs `{SCOPE_IDP_ROLES_WRITE}`. A taken name is 409; "
            "the seeded administrator role cannot be renamed (409)."
        ),
        **requires(SCOPE_IDP_ROLES_WRITE),
    )
    async def update_role(
        self, request: Request[Any, Any, Any], role_id: str, data: JSONBody[RoleUpdate]
    ) -> store.RoleRead:
        async with resources_of(request).sessions.begin() as session:
            role, changed = await store.update_role(
                session, role_id, name=strip_name(data.name), description=data.description
            )
            audit(
                request,
                session,
                action="role.update",
                target_type="role",
                target=str(role.id),
                detail={"fields": changed},
            )
        return role

    @delete(
        "/{role_id:str}",
        operation_id="deleteRole",
        summary="Delete a role",
        description=(
            f"Needs `{SCOPE_IDP_ROLES_WRITE}`. Users and groups lose the role; "
            "the seeded administrator role cannot be deleted (409)."
        ),
        **requires(SCOPE_IDP_ROLES_WRITE),
    )
    async def delete_role(self, request: Request[Any, Any, Any], role_id: str) -> None:
        async with resources_of(request).sessions.begin() as session:
            deleted = await store.delete_role(session, role_id)
            audit(
                request,
                session,
                action="role.delete",
                target_type="role",
                target=str(deleted),
                status_code=204,
            )

    @put(
        "/{role_id:str}/scopes",
        operation_id="setRoleScopes",
        summary="Replace a role's permissions",
        description=(
            f"Needs `{SCOPE_IDP_ROLES_WRITE}`. Each value must be a permission of an API "
            "(422 naming `scopes[i]` otherwise). Needs a recent sign-in with the password or a "
            "one-time code, and adds only scopes the caller holds itself (else 403 "
            "`admin.scope_not_held`)."
        ),
        **requires_sensitive(SCOPE_IDP_ROLES_WRITE),
    )
    async def set_scopes(
        self, request: Request[Any, Any, Any], role_id: str, data: JSONBody[RoleScopesReplace]
    ) -> store.RoleRead:
        async with resources_of(request).sessions.begin() as session:
            held = await caller_holds(request, session)
            role, added = await store.set_role_scopes(session, role_id, data.scopes)
            await check_may_give(request, held, added, target=str(role.id))
            audit(
                request,
                session,
                action="role.set_scopes",
                target_type="role",
                target=str(role.id),
                detail={"scopes": role.scopes},
            )
        return role


ROUTES = [RolesController]
