"""``/admin/groups``: groups, their members and their roles (contract §4 "Admin: groups").

Members of a group hold the scopes of the group's roles (docs/design.md "The provider's own
API and its permissions"). Adding members is idempotent; roles are replaced as a set.
Joining gives those scopes and leaving (a member removed, the group deleted) takes them
away: both need a caller holding them (:mod:`admin_service.authority`).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import delete, get, post, put
from litestar.params import JSONBody

from admin_service.authority import caller_holds, check_may_give, check_may_take
from admin_service.controllers.named_entries import named_entry_router
from admin_service.repos import groups as repo
from admin_service.routes import Limit, Names, Req, Write, operation, reading, writing
from idp_common.protocol.constants import SCOPE_IDP_GROUPS_READ, SCOPE_IDP_GROUPS_WRITE
from idp_common.storage.repos.paging import DEFAULT_LIMIT, Page
from idp_common.storage.repos.roles import role_scope_values

_MEMBERS = "/{group_id:str}/members"
_GIVES = (
    "needs a recent sign-in with the password or a one-time code, and a caller holding those "
    "scopes (else 403 `admin.scope_not_held`)."
)
_TAKES = f"Leaving takes away the scopes of the group's roles: when it has any, this {_GIVES}"


class MembersAdd(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    members: Annotated[list[str], msgspec.Meta(min_length=1, max_length=1000)]


class GroupRolesReplace(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    roles: Names


@get(
    _MEMBERS,
    **operation("listGroupMembers", "List a group's members (by email)", SCOPE_IDP_GROUPS_READ),
)
async def list_members(
    request: Req, group_id: str, limit: Limit = DEFAULT_LIMIT, cursor: str | None = None
) -> Page[repo.MemberRead]:
    async with reading(request) as session:
        return await repo.list_members(session, group_id, limit=limit, cursor=cursor)


@post(
    _MEMBERS,
    status_code=200,
    **operation(
        "addGroupMembers",
        "Add members to a group",
        SCOPE_IDP_GROUPS_WRITE,
        "Users already members stay so; an unknown user is 422 naming `members[i]`. Answers "
        f"the group. Joining gives the scopes of the group's roles: {_GIVES}",
        sensitive=True,
    ),
)
async def add_members(request: Req, group_id: str, data: JSONBody[MembersAdd]) -> repo.GroupRead:
    async with writing(request) as write:
        held = await caller_holds(request, write.session)
        group, added = await repo.add_members(write.session, group_id, data.members)
        if added:
            given = await repo.group_scope_values(write.session, group.id)
            await check_may_give(request, held, given, target=str(group.id))
        write.audit("group.add_members", group.id, added=[str(u) for u in added])
    return group


@delete(
    _MEMBERS + "/{user_id:str}",
    **operation(
        "removeGroupMember",
        "Remove a member from a group",
        SCOPE_IDP_GROUPS_WRITE,
        f"A user who is not a member is 404. {_TAKES}",
    ),
)
async def remove_member(request: Req, group_id: str, user_id: str) -> None:
    async with writing(request) as write:
        held = await caller_holds(request, write.session)
        group, user = await repo.remove_member(write.session, group_id, user_id)
        await check_may_take(request, write.session, held, group)
        write.audit("group.remove_member", group, status_code=204, user=str(user))


@put(
    "/{group_id:str}/roles",
    **operation(
        "setGroupRoles",
        "Replace a group's roles",
        SCOPE_IDP_GROUPS_WRITE,
        f"An unknown role is 422 naming `roles[i]`. A role added gives its scopes to every "
        f"member: {_GIVES}",
        sensitive=True,
    ),
)
async def set_roles(
    request: Req, group_id: str, data: JSONBody[GroupRolesReplace]
) -> repo.GroupRead:
    async with writing(request) as write:
        held = await caller_holds(request, write.session)
        group, added = await repo.set_group_roles(write.session, group_id, data.roles)
        given = await role_scope_values(write.session, added)
        await check_may_give(request, held, given, target=str(group.id))
        write.audit("group.set_roles", group.id, roles=[str(r.id) for r in group.roles])
    return group


async def _before_delete(write: Write, group_id: str) -> None:
    """Deleting a group that has members takes its roles' scopes from them."""
    request, session = write.request, write.session
    group = await repo.GROUPS.row(session, group_id, lock=True)
    members = await repo.list_members(session, str(group.id), limit=1, cursor=None)
    if members.items:
        await check_may_take(request, session, await caller_holds(request, session), group.id)


ROUTES = [
    named_entry_router(
        repo.GROUPS,
        repo.GroupRead,
        permissions=(SCOPE_IDP_GROUPS_READ, SCOPE_IDP_GROUPS_WRITE),
        update_note="A taken name is 409.",
        delete_note="Memberships, role links and the profile fields bound to the group (with "
        f"their values) go with it. {_TAKES}",
        more=[list_members, add_members, remove_member, set_roles],
        before_delete=_before_delete,
    )
]
