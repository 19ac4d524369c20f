"""``/admin/users/{user_id}/reset-password``, ``/totp``, ``/face`` and ``/sessions``: a
person's secrets and sessions (contract §4 "Admin: users"; docs/design.md "Wire contracts":
``DELETE /admin/users/{user_id}/sessions``). Credential changes follow
:mod:`admin_service.authority`: a recent sign-in with a secret, and two factors for
another administrator's credentials.

- ``POST .../reset-password`` with ``{password}`` sets that password (policy checked);
  with no body (or ``{}``) it removes the password, so the person can sign in again only
  through the emailed reset link. Either way (:mod:`idp_common.usecases.password_change`)
  every session ends with the logout fan-out (reason ``password_reset``) and every
  refresh token of the person is revoked. 204. The person is told by mail
  (:mod:`idp_common.operations.credential_notice`), as for every credential an
  administrator removes here.
- ``DELETE .../totp`` and ``DELETE .../face`` are idempotent (204 when there was none);
  an unknown person is 404. Removing one ends every session of the person and marks
  their credentials changed (:mod:`idp_common.usecases.credential_change`), so whoever
  signed in with it is out, and their access tokens stop at once.
- ``DELETE .../sessions`` ends browser sessions and the refresh tokens issued in them, as
  a logout does, and marks the person's credentials changed: their access tokens stop at
  once, and no sign-in from before steps up.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import msgspec
from litestar import Controller, Response, delete, post
from litestar.params import JSONBody
from msgspec import Meta

from admin_service.authority import check_credential_change
from admin_service.controllers.user_shared import CREDENTIAL_NOTE
from admin_service.repos import users as store
from admin_service.routes import Req, operation, reading, writing
from admin_service.user_sessions import audit_entry, end_sessions_after_removal, end_sessions_of
from idp_common.operations.credential_notice import (
    Change,
    Credential,
    notice_of,
    notice_task,
)
from idp_common.protocol.constants import SCOPE_IDP_USERS_WRITE as WRITE
from idp_common.storage.repos.credentials import remove_totp
from idp_common.storage.repos.face import delete_face_template
from idp_common.usecases.password_change import hash_new_password, set_password
from idp_common.web.caller import resources_of

Password = Annotated[str, Meta(max_length=1024)]  # the policy says why a length is refused
Remover = Callable[[Any, uuid.UUID], Awaitable[bool]]


class PasswordReset(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Without ``password`` the person's password is removed (see the module text)."""

    password: Password | None = None


async def _clear(
    request: Req,
    user_id: str,
    remove: Remover,
    credentials: tuple[Credential, ...],
    action: str,
    had: str,
) -> Response[None]:
    """Remove one credential of the person with ``remove`` and audit whether there was one
    (detail key ``had``); when there was, the person is told after the answer."""
    async with writing(request) as write:
        user = await store.lock_user(write.session, user_id)
        await check_credential_change(request, write.session, user.id)
        existed = await remove(write.session, user.id)
        ended = await end_sessions_after_removal(request, write.session, user.id) if existed else 0
        write.audit(action, user.id, status_code=204, **{had: existed, "sessionsEnded": ended})
    if not existed:
        return Response(None, status_code=204)
    notices = [
        notice_of(request, user.id, credential, "removed", by_administrator=True)
        for credential in credentials
    ]
    task = notice_task(resources_of(request), *notices)
    return Response(None, status_code=204, background=task)


def _clearing(operation_id: str, summary: str, note: str = "") -> dict[str, Any]:
    idempotent = f"{CREDENTIAL_NOTE} Idempotent: 204 also when the user has none. {note}"
    return operation(operation_id, summary, WRITE, idempotent.strip(), sensitive=True)


class UserCredentialsController(Controller):
    path = "/admin/users"
    tags = ["users"]

    @post(
        "/{user_id:str}/reset-password",
        status_code=204,
        **operation(
            "resetUserPassword",
            "Set (or remove) a user's password and end their sessions",
            WRITE,
            f"{CREDENTIAL_NOTE} With `password`: sets it (policy checked). Without: removes the "
            "password, so the person signs in again through a reset link. Either way every "
            "session ends and every refresh token of the user is revoked.",
            sensitive=True,
        ),
    )
    async def reset_password(
        self, request: Req, user_id: str, data: JSONBody[PasswordReset | None] = None
    ) -> Response[None]:
        password = data.password if data is not None else None
        password_hash = None
        if password is not None:
            async with reading(request) as session:
                person = await store.get_user(session, user_id)
            context = (person.email, person.username)
            password_hash = await hash_new_password(password, context=context)
        resources = resources_of(request)
        entry = audit_entry(request, "user.reset_password", 204)
        async with writing(request) as write:
            user = await store.lock_user(write.session, user_id)
            await check_credential_change(request, write.session, user.id)
            await set_password(
                write.session,
                resources.browser_sessions,
                user.id,
                password_hash,
                reason="password_reset",
                nats_prefix=resources.settings.nats_prefix,
                audit=entry,
            )
        change: Change = "changed" if password_hash is not None else "removed"
        notice = notice_of(request, user.id, "password", change, by_administrator=True)
        return Response(None, status_code=204, background=notice_task(resources, notice))

    @delete(
        "/{user_id:str}/totp",
        **_clearing("clearUserTotp", "Clear a user's authenticator (TOTP) and recovery codes"),
    )
    async def clear_totp(self, request: Req, user_id: str) -> Response[None]:
        return await _clear(
            request,
            user_id,
            remove_totp,
            ("authenticator", "recovery_codes"),
            "user.clear_totp",
            "hadAuthenticator",
        )

    @delete(
        "/{user_id:str}/face",
        **_clearing(
            "clearUserFace",
            "Clear a user's face template (face sign-in)",
            "Works whether or not the deployment has the face stack.",
        ),
    )
    async def clear_face(self, request: Req, user_id: str) -> Response[None]:
        return await _clear(
            request, user_id, delete_face_template, ("face",), "user.clear_face", "hadFace"
        )

    @delete(
        "/{user_id:str}/sessions",
        **operation(
            "endUserSessions",
            "End every browser session of a user (same fan-out as logout)",
            WRITE,
            "Each session's refresh tokens are revoked and each application reached in it "
            "receives a back-channel logout.",
        ),
    )
    async def end_sessions(self, request: Req, user_id: str) -> None:
        async with writing(request) as write:
            user = await store.lock_user(write.session, user_id)
            ended = await end_sessions_of(request, write.session, user.id, "admin_revoked")
            write.audit("user.end_sessions", user.id, status_code=204, sessionsEnded=ended)
