"""``/admin/users``: people, their grants, password, authenticator and sessions (spec part 4
"Admin: users"; DESIGN.md "Wire contracts": ``POST /admin/users``, ``PUT .../roles``,
``PUT .../scopes``, and ``DELETE /admin/users/{user_id}/sessions``).

The profile values (``/admin/users/{user_id}/profile``) have their own module.

Credential changes (password, authenticator, face, email, disabling, deleting) and grants
follow :mod:`admin_service.authority`: a recent sign-in with a secret, two factors for
another administrator's credentials, and no scope given that the caller does not hold.

Decisions the spec leaves open:
- ``POST .../reset-password`` with ``{password}`` sets that password (policy checked);
  with no body (or ``{}``) it removes the password, so the person can sign in again only
  through the emailed reset link. Either way every session ends with the logout fan-out
  (reason ``password_reset``) and every refresh token of the person is revoked. 204.
- ``PATCH`` with ``disabled: true`` also ends the person's sessions (reason
  ``user_disabled``); sign-in, authorization and refresh already refuse a disabled person.
  A changed email is unverified unless ``emailVerified`` is sent with it.
- ``DELETE .../totp`` is idempotent (204 when there was none); an unknown person is 404.
- ``DELETE .../sessions`` ends browser sessions and the refresh tokens issued in them, as
  a logout does; ``offline_access`` tokens not bound to a session stay valid.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Final

import msgspec
from litestar import Controller, Request, delete, get, patch, post, put
from litestar.params import JSONBody, Parameter
from msgspec import UNSET, Meta, UnsetType
from redis.exceptions import RedisError

from admin_service.authority import (
    caller_holds,
    check_credential_change,
    check_may_give,
    check_recent_secret,
    requires_sensitive,
)
from admin_service.store import users as store
from admin_service.store.roles import role_scope_values
from idp_common.crypto.passwords import hash_password_async
from idp_common.protocol.constants import SCOPE_IDP_USERS_READ, SCOPE_IDP_USERS_WRITE
from idp_common.protocol.email_address import MAX_EMAIL_LENGTH
from idp_common.protocol.password_policy import check_password
from idp_common.state.change_stamp import bump
from idp_common.storage.repos.face import delete_face_template
from idp_common.storage.repos.paging import DEFAULT_LIMIT, MAX_LIMIT, Page
from idp_common.storage.repos.permissions import EffectiveScope, list_scope_sources
from idp_common.usecases.session_end import end_person_sessions, revoke_user_refresh_tokens
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import USERS_STAMP, requires

log = logging.getLogger("idp.admin.users")
TARGET: Final = "user"
READ_NOTE: Final = f"Needs `{SCOPE_IDP_USERS_READ}`."
WRITE_NOTE: Final = f"Needs `{SCOPE_IDP_USERS_WRITE}`."
#: docs/admin-api.md "Granting and credentials".
GRANT_NOTE: Final = (
    f"{WRITE_NOTE} Needs a recent sign-in with the password or a one-time code (else 403 "
    "with an RFC 9470 step-up challenge), and gives only scopes the caller holds itself "
    "(else 403 `admin.scope_not_held`)."
)
CREDENTIAL_NOTE: Final = (
    f"{WRITE_NOTE} Needs a recent sign-in with the password or a one-time code; for another "
    "administrator, a sign-in with two factors and every administration scope they hold "
    "(else 403)."
)

Email = Annotated[str, Meta(min_length=3, max_length=MAX_EMAIL_LENGTH)]
Username = Annotated[str, Meta(min_length=1, max_length=100, pattern=r"^\S+$")]
DisplayName = Annotated[str, Meta(max_length=200)]
Password = Annotated[str, Meta(max_length=1024)]  # the policy says why a length is refused


class UserCreate(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    email: Email
    password: Password
    username: Username | None = None
    display_name: DisplayName = ""


class UserUpdate(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    """Only the members sent change; ``username: null`` removes the username."""

    email: Email | UnsetType = UNSET
    username: Username | UnsetType | None = UNSET
    display_name: DisplayName | UnsetType = UNSET
    email_verified: bool | UnsetType = UNSET
    disabled: bool | UnsetType = UNSET


class UserRolesUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    roles: list[str]


class UserRolesRead(msgspec.Struct, frozen=True):
    roles: list[store.RoleRef]


class UserScopesUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    scopes: list[str]


class UserScopesRead(msgspec.Struct, frozen=True):
    scopes: list[str]


class PasswordReset(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Without ``password`` the person's password is removed (see the module text)."""

    password: Password | None = None


class EffectiveScopesRead(msgspec.Struct, frozen=True):
    items: list[EffectiveScope]


async def _tell_guards(request: Request[Any, Any, Any]) -> None:
    """After the commit: every bearer guard forgets which people it knew as active
    (``idp_common.web.guard``), so the person's access tokens stop working at the next
    request. If Redis cannot be told, the guards find out within five seconds."""
    resources = resources_of(request)
    try:
        await bump(resources.redis, resources.settings.redis_prefix, USERS_STAMP)
    except (RedisError, OSError) as exc:
        log.error("could not announce a disabled or deleted person (%s)", type(exc).__name__)


def _changes(data: JSONBody[UserUpdate]) -> dict[str, Any]:
    fields = (getattr(data, name) for name in data.__struct_fields__)
    return {
        name: value
        for name, value in zip(data.__struct_fields__, fields, strict=True)
        if value is not UNSET
    }


class UsersController(Controller):
    path = "/admin/users"
    tags = ["users"]

    @get(
        operation_id="listUsers",
        summary="List users by email (case-insensitive prefix filters on email and username)",
        description=READ_NOTE,
        **requires(SCOPE_IDP_USERS_READ),
    )
    async def list_users(
        self,
        request: Request[Any, Any, Any],
        email: str | None = None,
        username: str | None = None,
        limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> Page[store.UserRead]:
        async with resources_of(request).sessions() as session:
            return await store.list_users(
                session, email=email, username=username, limit=limit, cursor=cursor
            )

    @post(
        operation_id="createUser",
        summary="Create a user with a password",
        description=f"{WRITE_NOTE} The password must pass the password policy.",
        **requires(SCOPE_IDP_USERS_WRITE),
    )
    async def create_user(
        self, request: Request[Any, Any, Any], data: JSONBody[UserCreate]
    ) -> store.UserRead:
        store.check_email(data.email)
        check_password(data.password, context=(data.email, data.username))
        password_hash = await hash_password_async(data.password)
        async with resources_of(request).sessions.begin() as session:
            user = await store.create_user(
                session,
                email=data.email,
                username=data.username,
                display_name=data.display_name,
                password_hash=password_hash,
            )
            audit(
                request,
                session,
                action="user.create",
                target_type=TARGET,
                target=str(user.id),
                status_code=201,
            )
        return user

    @get(
        "/{user_id:str}",
        operation_id="getUser",
        summary="Read a user",
        description=READ_NOTE,
        **requires(SCOPE_IDP_USERS_READ),
    )
    async def get_user(self, request: Request[Any, Any, Any], user_id: str) -> store.UserRead:
        async with resources_of(request).sessions() as session:
            return await store.get_user(session, user_id)

    @patch(
        "/{user_id:str}",
        operation_id="updateUser",
        summary="Change a user's email, username, display name, verification or disabled flag",
        description=f"{WRITE_NOTE} Disabling a user also ends their sessions. Changing the "
        "email or disabling is a credential change: " + CREDENTIAL_NOTE.removeprefix(WRITE_NOTE),
        **requires(SCOPE_IDP_USERS_WRITE),
    )
    async def update_user(
        self, request: Request[Any, Any, Any], user_id: str, data: JSONBody[UserUpdate]
    ) -> store.UserRead:
        changes = _changes(data)
        credentials = "email" in changes or data.disabled is True
        if credentials:
            await check_recent_secret(request)
        resources = resources_of(request)
        async with resources.sessions.begin() as session:
            if credentials:
                target = await store.lock_user(session, user_id)
                await check_credential_change(request, session, target.id)
            user = await store.update_user(session, user_id, changes)
            ended = 0
            if data.disabled is True:
                ended, _ = await end_person_sessions(
                    session,
                    resources.browser_sessions,
                    user.id,
                    reason="user_disabled",
                    nats_prefix=resources.settings.nats_prefix,
                )
            audit(
                request,
                session,
                action="user.update",
                target_type=TARGET,
                target=str(user.id),
                detail={"fields": sorted(changes), "sessionsEnded": ended},
            )
        if data.disabled is True:
            await _tell_guards(request)
        return user

    @delete(
        "/{user_id:str}",
        operation_id="deleteUser",
        summary="Delete a user, ending their sessions",
        description=f"{CREDENTIAL_NOTE} Credentials, grants, memberships, tokens, consents "
        "and profile values go with the user.",
        **requires_sensitive(SCOPE_IDP_USERS_WRITE),
    )
    async def delete_user(self, request: Request[Any, Any, Any], user_id: str) -> None:
        resources = resources_of(request)
        async with resources.sessions.begin() as session:
            user = await store.lock_user(session, user_id)
            await check_credential_change(request, session, user.id)
            ended, _ = await end_person_sessions(
                session,
                resources.browser_sessions,
                user.id,
                reason="user_deleted",
                nats_prefix=resources.settings.nats_prefix,
            )
            await store.delete_user(session, user.id)
            audit(
                request,
                session,
                action="user.delete",
                target_type=TARGET,
                target=str(user.id),
                status_code=204,
                detail={"sessionsEnded": ended},
            )
        await _tell_guards(request)

    @get(
        "/{user_id:str}/effective-scopes",
        operation_id="getUserEffectiveScopes",
        summary="Explain a user's permissions: every scope held and where it comes from",
        description=f"{READ_NOTE} Sources: `direct`, `role`, `group` (through a role of the "
        "group) and `default` (the self-service scopes every user holds).",
        **requires(SCOPE_IDP_USERS_READ),
    )
    async def effective_scopes(
        self, request: Request[Any, Any, Any], user_id: str
    ) -> EffectiveScopesRead:
        async with resources_of(request).sessions() as session:
            user = await store.get_user(session, user_id)
            return EffectiveScopesRead(items=await list_scope_sources(session, user.id))

    @get(
        "/{user_id:str}/roles",
        operation_id="getUserRoles",
        summary="The roles given to a user directly",
        description=f"{READ_NOTE} Roles held through groups are in `effective-scopes`.",
        **requires(SCOPE_IDP_USERS_READ),
    )
    async def get_roles(self, request: Request[Any, Any, Any], user_id: str) -> UserRolesRead:
        async with resources_of(request).sessions() as session:
            return UserRolesRead(roles=await store.user_roles(session, user_id))

    @get(
        "/{user_id:str}/scopes",
        operation_id="getUserScopes",
        summary="The scopes granted to a user directly",
        description=f"{READ_NOTE} Scopes held through roles and groups are in `effective-scopes`.",
        **requires(SCOPE_IDP_USERS_READ),
    )
    async def get_scopes(self, request: Request[Any, Any, Any], user_id: str) -> UserScopesRead:
        async with resources_of(request).sessions() as session:
            return UserScopesRead(scopes=await store.user_scopes(session, user_id))

    @put(
        "/{user_id:str}/roles",
        operation_id="setUserRoles",
        summary="Replace a user's roles",
        description=f"{GRANT_NOTE} A role added gives its scopes.",
        **requires_sensitive(SCOPE_IDP_USERS_WRITE),
    )
    async def set_roles(
        self, request: Request[Any, Any, Any], user_id: str, data: JSONBody[UserRolesUpdate]
    ) -> UserRolesRead:
        async with resources_of(request).sessions.begin() as session:
            user = await store.lock_user(session, user_id)
            held = await caller_holds(request, session)
            before = {role.id for role in await store.user_roles(session, user_id)}
            roles = await store.set_user_roles(session, user.id, data.roles)
            added = [role.id for role in roles if role.id not in before]
            given = await role_scope_values(session, added)
            await check_may_give(request, held, given, target=str(user.id))
            audit(
                request,
                session,
                action="user.set_roles",
                target_type=TARGET,
                target=str(user.id),
                detail={"roles": [str(role.id) for role in roles]},
            )
        return UserRolesRead(roles=roles)

    @put(
        "/{user_id:str}/scopes",
        operation_id="setUserScopes",
        summary="Replace a user's direct scope grants",
        description=GRANT_NOTE,
        **requires_sensitive(SCOPE_IDP_USERS_WRITE),
    )
    async def set_scopes(
        self, request: Request[Any, Any, Any], user_id: str, data: JSONBody[UserScopesUpdate]
    ) -> UserScopesRead:
        async with resources_of(request).sessions.begin() as session:
            user = await store.lock_user(session, user_id)
            held = await caller_holds(request, session)
            before = set(await store.user_scopes(session, user_id))
            scopes = await store.set_user_scopes(session, user.id, data.scopes)
            given = [value for value in scopes if value not in before]
            await check_may_give(request, held, given, target=str(user.id))
            audit(
                request,
                session,
                action="user.set_scopes",
                target_type=TARGET,
                target=str(user.id),
                detail={"scopes": scopes},
            )
        return UserScopesRead(scopes=scopes)

    @post(
        "/{user_id:str}/reset-password",
        status_code=204,
        operation_id="resetUserPassword",
        summary="Set (or remove) a user's password and end their sessions",
        description=f"{CREDENTIAL_NOTE} With `password`: sets it (policy checked). Without: "
        "removes the password, so the person signs in again through a reset link. Either way "
        "every session ends and every refresh token of the user is revoked.",
        **requires_sensitive(SCOPE_IDP_USERS_WRITE),
    )
    async def reset_password(
        self,
        request: Request[Any, Any, Any],
        user_id: str,
        data: JSONBody[PasswordReset | None] = None,
    ) -> None:
        resources = resources_of(request)
        password = data.password if data is not None else None
        password_hash = None
        if password is not None:
            async with resources.sessions() as session:
                person = await store.get_user(session, user_id)
            check_password(password, context=(person.email, person.username))
            password_hash = await hash_password_async(password)
        async with resources.sessions.begin() as session:
            user = await store.lock_user(session, user_id)
            await check_credential_change(request, session, user.id)
            await store.set_password_hash(session, user.id, password_hash)
            ended, _ = await end_person_sessions(
                session,
                resources.browser_sessions,
                user.id,
                reason="password_reset",
                nats_prefix=resources.settings.nats_prefix,
            )
            await revoke_user_refresh_tokens(session, user.id)
            audit(
                request,
                session,
                action="user.reset_password",
                target_type=TARGET,
                target=str(user.id),
                status_code=204,
                detail={"passwordSet": password_hash is not None, "sessionsEnded": ended},
            )

    @delete(
        "/{user_id:str}/totp",
        operation_id="clearUserTotp",
        summary="Clear a user's authenticator (TOTP) and recovery codes",
        description=f"{CREDENTIAL_NOTE} Idempotent: 204 also when the user has none.",
        **requires_sensitive(SCOPE_IDP_USERS_WRITE),
    )
    async def clear_totp(self, request: Request[Any, Any, Any], user_id: str) -> None:
        async with resources_of(request).sessions.begin() as session:
            user = await store.lock_user(session, user_id)
            await check_credential_change(request, session, user.id)
            had = await store.clear_totp(session, user.id)
            audit(
                request,
                session,
                action="user.clear_totp",
                target_type=TARGET,
                target=str(user.id),
                status_code=204,
                detail={"hadAuthenticator": had},
            )

    @delete(
        "/{user_id:str}/face",
        operation_id="clearUserFace",
        summary="Clear a user's face template (face sign-in)",
        description=f"{CREDENTIAL_NOTE} Idempotent: 204 also when the user has none. Works "
        "whether or not the deployment has the face stack.",
        **requires_sensitive(SCOPE_IDP_USERS_WRITE),
    )
    async def clear_face(self, request: Request[Any, Any, Any], user_id: str) -> None:
        async with resources_of(request).sessions.begin() as session:
            user = await store.lock_user(session, user_id)
            await check_credential_change(request, session, user.id)
            had = await delete_face_template(session, user.id)
            audit(
                request,
                session,
                action="user.clear_face",
                target_type=TARGET,
                target=str(user.id),
                status_code=204,
                detail={"hadFace": had},
            )

    @delete(
        "/{user_id:str}/sessions",
        operation_id="endUserSessions",
        summary="End every browser session of a user (same fan-out as logout)",
        description=f"{WRITE_NOTE} Each session's refresh tokens are revoked and each "
        "application reached in it receives a back-channel logout.",
        **requires(SCOPE_IDP_USERS_WRITE),
    )
    async def end_sessions(self, request: Request[Any, Any, Any], user_id: str) -> None:
        resources = resources_of(request)
        async with resources.sessions.begin() as session:
            user = await store.lock_user(session, user_id)
            ended, _ = await end_person_sessions(
                session,
                resources.browser_sessions,
                user.id,
                reason="admin_revoked",
                nats_prefix=resources.settings.nats_prefix,
            )
            audit(
                request,
                session,
                action="user.end_sessions",
                target_type=TARGET,
                target=str(user.id),
                status_code=204,
                detail={"sessionsEnded": ended},
            )


ROUTES = [UsersController]
