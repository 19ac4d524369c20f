"""``/admin/groups``: groups, their members and their roles (spec part 4 "Admin: groups").

Members of a group hold the scopes of the group's roles (DESIGN.md "The provider's own
API and its permissions"). Adding members is idempotent; roles are replaced as a set.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, delete, get, patch, post, put
from litestar.params import JSONBody

from admin_service.authority import caller_holds, check_may_give, requires_sensitive
from admin_service.controllers.roles import Description, Limit, Name, strip_name
from admin_service.store import groups as store
from admin_service.store.roles import role_scope_values
from idp_common.protocol.constants import SCOPE_IDP_GROUPS_READ, SCOPE_IDP_GROUPS_WRITE
from idp_common.storage.repos.paging import DEFAULT_LIMIT, Page
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import requires

_GROUP = "/{group_id:str}"


class GroupCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    name: Name
    description: Description = ""


class GroupUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Members left out (or null) keep their value."""

    name: Name | None = None
    description: Description | None = None


class MembersAdd(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    members: Annotated[list[str], msgspec.Meta(min_length=1, max_length=1000)]


class GroupRolesReplace(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    roles: list[str]


class GroupsController(Controller):
    path = "/admin/groups"
    tags = ["groups"]

    @get(
        operation_id="listGroups",
        summary="List groups (by name)",
        description=f"Needs `{SCOPE_IDP_GROUPS_READ}`.",
        **requires(SCOPE_IDP_GROUPS_READ),
    )
    async def list_groups(
        self,
        request: Request[Any, Any, Any],
        limit: Limit = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> Page[store.GroupRead]:
        async with resources_of(request).sessions() as session:
            return await store.list_groups(session, limit=limit, cursor=cursor)

    @post(
        operation_id="createGroup",
        summary="Create a group",
        description=f"Needs `{SCOPE_IDP_GROUPS_WRITE}`. A taken name is 409.",
        **requires(SCOPE_IDP_GROUPS_WRITE),
    )
    async def create_group(
        self, request: Request[Any, Any, Any], data: JSONBody[GroupCreate]
    ) -> store.GroupRead:
        async with resources_of(request).sessions.begin() as session:
            group = await store.create_group(
                session, name=data.name.strip(), description=data.description
            )
            audit(
                request,
                session,
                action="group.create",
                target_type="group",
                target=str(group.id),
                status_code=201,
            )
        return group

    @get(
        _GROUP,
        operation_id="getGroup",
        summary="Read a group",
        description=f"Needs `{SCOPE_IDP_GROUPS_READ}`.",
        **requires(SCOPE_IDP_GROUPS_READ),
    )
    async def get_group(self, request: Request[Any, Any, Any], group_id: str) -> store.GroupRead:
        async with resources_of(request).sessions() as session:
            return await store.get_group(session, group_id)

    @patch(
        _GROUP,
        operation_id="updateGroup",
        summary="Rename or describe a group",
        description=f"Needs `{SCOPE_IDP_GROUPS_WRITE}`. A taken name is 409.",
        **requires(SCOPE_IDP_GROUPS_WRITE),
    )
    async def update_group(
        self, request: Request[Any, Any, Any], group_id: str, data: JSONBody[GroupUpdate]
    ) -> store.GroupRead:
        async with resources_of(request).sessions.begin() as session:
            group, changed = await store.update_group(
                session, group_id, name=strip_name(data.name), description=data.description
            )
            audit(
                request,
                session,
                action="group.update",
                target_type="group",
                target=str(group.id),
                detail={"fields": changed},
            )
        return group

    @delete(
        _GROUP,
        operation_id="deleteGroup",
        summary="Delete a group",
        description=(
            f"Needs `{SCOPE_IDP_GROUPS_WRITE}`. Memberships, role links and the profile "
            "fields bound to the group (with their values) go with it."
        ),
        **requires(SCOPE_IDP_GROUPS_WRITE),
    )
    async def delete_group(self, request: Request[Any, Any, Any], group_id: str) -> None:
        async with resources_of(request).sessions.begin() as session:
            deleted = await store.delete_group(session, group_id)
            audit(
                request,
                session,
                action="group.delete",
                target_type="group",
                target=str(deleted),
                status_code=204,
            )

    @get(
        f"{_GROUP}/members",
        operation_id="listGroupMembers",
        summary="List a group's members (by email)",
        description=f"Needs `{SCOPE_IDP_GROUPS_READ}`.",
        **requires(SCOPE_IDP_GROUPS_READ),
    )
    async def list_members(
        self,
        request: Request[Any, Any, Any],
        group_id: str,
        limit: Limit = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> Page[store.MemberRead]:
        async with resources_of(request).sessions() as session:
            return await store.list_members(session, group_id, limit=limit, cursor=cursor)

    @post(
        f"{_GROUP}/members",
        status_code=200,
        operation_id="addGroupMembers",
        summary="Add members to a group",
        description=(
            f"Needs `{SCOPE_IDP_GROUPS_WRITE}`. Users already members stay so; an unknown "
            "user is 422 naming `members[i]`. Answers the group. Joining gives the scopes of "
            "the group's roles: needs a recent sign-in with the password or a one-time code, "
            "and a caller holding those scopes (else 403 `admin.scope_not_held`)."
        ),
        **requires_sensitive(SCOPE_IDP_GROUPS_WRITE),
    )
    async def add_members(
        self, request: Request[Any, Any, Any], group_id: str, data: JSONBody[MembersAdd]
    ) -> store.GroupRead:
        async with resources_of(request).sessions.begin() as session:
            held = await caller_holds(request, session)
            group, added = await store.add_members(session, group_id, data.members)
            if added:
                given = await store.group_scope_values(session, group.id)
                await check_may_give(request, held, given, target=str(group.id))
            audit(
                request,
                session,
                action="group.add_members",
                target_type="group",
                target=str(group.id),
                detail={"added": [str(u) for u in added]},
            )
        return group

    @delete(
        f"{_GROUP}/members/{{user_id:str}}",
        operation_id="removeGroupMember",
        summary="Remove a member from a group",
        description=f"Needs `{SCOPE_IDP_GROUPS_WRITE}`. A user who is not a member is 404.",
        **requires(SCOPE_IDP_GROUPS_WRITE),
    )
    async def remove_member(
        self, request: Request[Any, Any, Any], group_id: str, user_id: str
    ) -> None:
        async with resources_of(request).sessions.begin() as session:
            group, user = await store.remove_member(session, group_id, user_id)
            audit(
                request,
                session,
                action="group.remove_member",
                target_type="group",
                target=str(group),
                status_code=204,
                detail={"user": str(user)},
            )

    @put(
        f"{_GROUP}/roles",
        operation_id="setGroupRoles",
        summary="Replace a group's roles",
        description=(
            f"Needs `{SCOPE_IDP_GROUPS_WRITE}`. An unknown role is 422 naming `roles[i]`. "
            "A role added gives its scopes to every member: needs a recent sign-in with the "
            "password or a one-time code, and a caller holding those scopes (else 403 "
            "`admin.scope_not_held`)."
        ),
        **requires_sensitive(SCOPE_IDP_GROUPS_WRITE),
    )
    async def set_roles(
        self, request: Request[Any, Any, Any], group_id: str, data: JSONBody[GroupRolesReplace]
    ) -> store.GroupRead:
        async with resources_of(request).sessions.begin() as session:
            held = await caller_holds(request, session)
            group, added = await store.set_group_roles(session, group_id, data.roles)
            given = await role_scope_values(session, added)
            await check_may_give(request, held, given, target=str(group.id))
            audit(
                request,
                session,
                action="group.set_roles",
                target_type="group",
                target=str(group.id),
                detail={"roles": [str(r.id) for r in group.roles]},
            )
        return group


ROUTES = [GroupsController]
