"""``/admin/roles``: roles and the permissions they hold (contract §4 "Admin: roles").

The seeded ``administrator`` role cannot be renamed or deleted (409); its scopes can be
replaced like any role's.
"""

from __future__ import annotations

import msgspec
from litestar import put
from litestar.params import JSONBody

from admin_service.authority import caller_holds, check_may_give
from admin_service.controllers.named_entries import named_entry_router
from admin_service.routes import Names, Req, operation, writing
from idp_common.protocol.constants import SCOPE_IDP_ROLES_READ, SCOPE_IDP_ROLES_WRITE
from idp_common.storage.repos import roles as repo


class RoleScopesReplace(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    scopes: Names


@put(
    "/{role_id:str}/scopes",
    **operation(
        "setRoleScopes",
        "Replace a role's permissions",
        SCOPE_IDP_ROLES_WRITE,
        "Each value must be a permission of an API (422 naming `scopes[i]` otherwise). Needs "
        "a recent sign-in with the password or a one-time code, and adds only scopes the "
        "caller holds itself (else 403 `admin.scope_not_held`).",
        sensitive=True,
    ),
)
async def set_scopes(
    request: Req, role_id: str, data: JSONBody[RoleScopesReplace]
) -> repo.RoleRead:
    async with writing(request) as write:
        held = await caller_holds(request, write.session)
        role, added = await repo.set_role_scopes(write.session, role_id, data.scopes)
        await check_may_give(request, held, added, target=str(role.id))
        write.audit("role.set_scopes", role.id, scopes=role.scopes)
    return role


ROUTES = [
    named_entry_router(
        repo.ROLES,
        repo.RoleRead,
        permissions=(SCOPE_IDP_ROLES_READ, SCOPE_IDP_ROLES_WRITE),
        update_note="A taken name is 409; the seeded administrator role cannot be renamed (409).",
        delete_note="Users and groups lose the role; the seeded administrator role cannot be "
        "deleted (409).",
        more=[set_scopes],
    )
]
