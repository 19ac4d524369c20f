"""``/admin/users/{user_id}/roles``, ``/scopes`` and ``/effective-scopes``: a person's direct
grants and every scope they hold (contract §4 "Admin: users"; docs/design.md "Wire contracts":
``PUT .../roles``, ``PUT .../scopes``). Changing grants follows
:mod:`admin_service.authority`: a recent sign-in with a secret, and no scope given that
the caller does not hold.
"""

from __future__ import annotations

import msgspec
from litestar import Controller, get, put
from litestar.params import JSONBody

from admin_service.authority import caller_holds, check_may_give
from admin_service.controllers.user_shared import GRANT_NOTE
from admin_service.repos import users as store
from admin_service.routes import Names, Req, operation, reading, writing
from idp_common.protocol.constants import SCOPE_IDP_USERS_READ as READ
from idp_common.protocol.constants import SCOPE_IDP_USERS_WRITE as WRITE
from idp_common.storage.repos import user_grants
from idp_common.storage.repos.permissions import EffectiveScope, list_scope_sources
from idp_common.storage.repos.roles import role_scope_values
from idp_common.storage.repos.user_grants import RoleRef


class UserRolesUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    roles: Names


class UserRolesRead(msgspec.Struct, frozen=True):
    roles: list[RoleRef]


class UserScopesUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    scopes: Names


class UserScopesRead(msgspec.Struct, frozen=True):
    scopes: list[str]


class EffectiveScopesRead(msgspec.Struct, frozen=True):
    items: list[EffectiveScope]


class UserGrantsController(Controller):
    path = "/admin/users"
    tags = ["users"]

    @get(
        "/{user_id:str}/effective-scopes",
        **operation(
            "getUserEffectiveScopes",
            "Explain a user's permissions: every scope held and where it comes from",
            READ,
            "Sources: `direct`, `role`, `group` (through a role of the group) and `default` "
            "(the self-service scopes every user holds).",
        ),
    )
    async def effective_scopes(self, request: Req, user_id: str) -> EffectiveScopesRead:
        async with reading(request) as session:
            user = await store.get_user(session, user_id)
            return EffectiveScopesRead(items=await list_scope_sources(session, user.id))

    @get(
        "/{user_id:str}/roles",
        **operation(
            "getUserRoles",
            "The roles given to a user directly",
            READ,
            "Roles held through groups are in `effective-scopes`.",
        ),
    )
    async def get_roles(self, request: Req, user_id: str) -> UserRolesRead:
        async with reading(request) as session:
            return UserRolesRead(roles=await store.user_roles(session, user_id))

    @get(
        "/{user_id:str}/scopes",
        **operation(
            "getUserScopes",
            "The scopes granted to a user directly",
            READ,
            "Scopes held through roles and groups are in `effective-scopes`.",
        ),
    )
    async def get_scopes(self, request: Req, user_id: str) -> UserScopesRead:
        async with reading(request) as session:
            return UserScopesRead(scopes=await store.user_scopes(session, user_id))

    @put(
        "/{user_id:str}/roles",
        **operation(
            "setUserRoles",
            "Replace a user's roles",
            WRITE,
            f"{GRANT_NOTE} A role added gives its scopes.",
            sensitive=True,
        ),
    )
    async def set_roles(
        self, request: Req, user_id: str, data: JSONBody[UserRolesUpdate]
    ) -> UserRolesRead:
        async with writing(request) as write:
            session = write.session
            user = await store.lock_user(session, user_id)
            held = await caller_holds(request, session)
            before = {role.id for role in await user_grants.user_roles(session, user.id)}
            roles = await user_grants.set_user_roles(session, user.id, data.roles)
            given = await role_scope_values(session, [r.id for r in roles if r.id not in before])
            await check_may_give(request, held, given, target=str(user.id))
            write.audit("user.set_roles", user.id, roles=[str(role.id) for role in roles])
        return UserRolesRead(roles=roles)

    @put(
        "/{user_id:str}/scopes",
        **operation(
            "setUserScopes",
            "Replace a user's direct scope grants",
            WRITE,
            GRANT_NOTE,
            sensitive=True,
        ),
    )
    async def set_scopes(
        self, request: Req, user_id: str, data: JSONBody[UserScopesUpdate]
    ) -> UserScopesRead:
        async with writing(request) as write:
            session = write.session
            user = await store.lock_user(session, user_id)
            held = await caller_holds(request, session)
            before = set(await user_grants.user_scopes(session, user.id))
            scopes = await user_grants.set_user_scopes(session, user.id, data.scopes)
            given = [value for value in scopes if value not in before]
            await check_may_give(request, held, given, target=str(user.id))
            write.audit("user.set_scopes", user.id, scopes=scopes)
        return UserScopesRead(scopes=scopes)
