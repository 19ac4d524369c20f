"""``/admin/users``: people, their grants, password, authenticator and sessions (contract §4
"Admin: users"; docs/design.md "Wire contracts": ``POST /admin/users``, ``PUT .../roles``,
``PUT .../scopes``, and ``DELETE /admin/users/{user_id}/sessions``).

Routes by concern: the person record here; grants in :mod:`.user_grants`; password,
authenticator, face and sessions in :mod:`.user_credentials`; profile values
(``/admin/users/{user_id}/profile``) in :mod:`.user_profile`.

Credential changes (password, authenticator, face, email, disabling or enabling again,
deleting) and grants follow :mod:`admin_service.authority`: a recent sign-in with a
secret, two factors for another administrator's credentials, and no scope given that the
caller does not hold. Enabling a disabled person hands their account back, so it is a
credential change as disabling is.

Decisions the contract leaves open:
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

from typing import Annotated, Any

import msgspec
from litestar import Controller, delete, get, patch, post
from litestar.params import JSONBody
from msgspec import UNSET, Meta, UnsetType

from admin_service.authority import check_credential_change, check_recent_secret
from admin_service.controllers.user_credentials import UserCredentialsController
from admin_service.controllers.user_grants import UserGrantsController
from admin_service.controllers.user_shared import CREDENTIAL_NOTE
from admin_service.repos import users as store
from admin_service.routes import Limit, Req, operation, reading, writing
from admin_service.user_sessions import end_sessions_of, tell_guards
from idp_common.protocol.constants import SCOPE_IDP_USERS_READ as READ
from idp_common.protocol.constants import SCOPE_IDP_USERS_WRITE as WRITE
from idp_common.protocol.email_address import MAX_EMAIL_LENGTH
from idp_common.storage.repos import users
from idp_common.storage.repos.paging import DEFAULT_LIMIT, Page
from idp_common.usecases.password_change import hash_new_password

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


def _changes(data: UserUpdate) -> dict[str, Any]:
    sent = ((name, getattr(data, name)) for name in data.__struct_fields__)
    return {name: value for name, value in sent if value is not UNSET}


class UsersController(Controller):
    path = "/admin/users"
    tags = ["users"]

    @get(
        **operation(
            "listUsers",
            "List users by email (case-insensitive prefix filters on email and username)",
            READ,
        )
    )
    async def list_users(
        self,
        request: Req,
        email: str | None = None,
        username: str | None = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> Page[store.UserRead]:
        async with reading(request) as session:
            page = await users.list_users(
                session, email=email, username=username, limit=limit, cursor=cursor
            )
        return store.page_of(page)

    @post(
        **operation(
            "createUser",
            "Create a user with a password",
            WRITE,
            "The password must pass the password policy.",
        )
    )
    async def create_user(self, request: Req, data: JSONBody[UserCreate]) -> store.UserRead:
        store.check_email(data.email)
        context = (data.email, data.username)
        password_hash = await hash_new_password(data.password, context=context)
        async with writing(request) as write:
            user = await store.create_user(
                write.session,
                email=data.email,
                username=data.username,
                display_name=data.display_name,
                password_hash=password_hash,
            )
            write.audit("user.create", user.id, status_code=201)
        return user

    @get("/{user_id:str}", **operation("getUser", "Read a user", READ))
    async def get_user(self, request: Req, user_id: str) -> store.UserRead:
        async with reading(request) as session:
            return await store.get_user(session, user_id)

    @patch(
        "/{user_id:str}",
        **operation(
            "updateUser",
            "Change a user's email, username, display name, verification or disabled flag",
            WRITE,
            "Disabling a user also ends their sessions. Changing the email, or sending "
            f"`disabled` (disabling or enabling again), is a credential change: {CREDENTIAL_NOTE}",
        ),
    )
    async def update_user(
        self, request: Req, user_id: str, data: JSONBody[UserUpdate]
    ) -> store.UserRead:
        changes = _changes(data)
        credentials = "email" in changes or "disabled" in changes
        if credentials:
            await check_recent_secret(request)
        async with writing(request) as write:
            if credentials:
                target = await store.lock_user(write.session, user_id)
                await check_credential_change(request, write.session, target.id)
            user = await store.update_user(write.session, user_id, changes)
            ended = 0
            if data.disabled is True:
                ended = await end_sessions_of(request, write.session, user.id, "user_disabled")
            # the flag's value tells the webhook events user.disabled from user.enabled
            flag = {"disabled": changes["disabled"]} if "disabled" in changes else {}
            write.audit("user.update", user.id, fields=sorted(changes), sessionsEnded=ended, **flag)
        if data.disabled is True:
            await tell_guards(request)
        return user

    @delete(
        "/{user_id:str}",
        **operation(
            "deleteUser",
            "Delete a user, ending their sessions",
            WRITE,
            f"{CREDENTIAL_NOTE} Credentials, grants, memberships, tokens, consents and "
            "profile values go with the user.",
            sensitive=True,
        ),
    )
    async def delete_user(self, request: Req, user_id: str) -> None:
        async with writing(request) as write:
            user = await store.lock_user(write.session, user_id)
            await check_credential_change(request, write.session, user.id)
            ended = await end_sessions_of(request, write.session, user.id, "user_deleted")
            await users.delete_user(write.session, user.id)
            write.audit("user.delete", user.id, status_code=204, sessionsEnded=ended)
        await tell_guards(request)


ROUTES: list[type[Controller]] = [UsersController, UserGrantsController, UserCredentialsController]
