"""``/admin/users/{user_id}/passkeys``: a person's passkeys (docs/passkeys.md),
as the self-service API shows them (:class:`idp_common.passkeys.wire.PasskeyRead`).

- ``GET`` (``idp:users:read``): ``{items}``, oldest first; an unknown person is 404.
- ``DELETE .../{passkey_id}`` (``idp:users:write``) is a credential change
  (:mod:`admin_service.authority`): a recent sign-in with a secret, and for another
  administrator two factors and every administration scope they hold. 204; an unknown
  person or a passkey that is not theirs is 404. Every session of the person ends and their
  credentials count as changed (:mod:`idp_common.usecases.credential_change`). Audited
  ``user.remove_passkey``.
"""

from __future__ import annotations

import uuid

from litestar import Controller, Response, delete, get

from admin_service.authority import check_credential_change
from admin_service.controllers.user_shared import CREDENTIAL_NOTE
from admin_service.repos import users as store
from admin_service.routes import Req, operation, reading, writing
from admin_service.user_sessions import end_sessions_after_removal
from idp_common.errors import NotFound
from idp_common.operations.credential_notice import notice_of, notice_task
from idp_common.passkeys.wire import PasskeyList, passkey_read
from idp_common.protocol.constants import SCOPE_IDP_USERS_READ as READ
from idp_common.protocol.constants import SCOPE_IDP_USERS_WRITE as WRITE
from idp_common.storage.repos import passkeys as repo
from idp_common.web.caller import resources_of


def _passkey_not_found() -> NotFound:
    return NotFound("the user has no passkey with this id", code="admin.passkey_not_found")


def _passkey_key(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise _passkey_not_found() from None


class UserPasskeysController(Controller):
    path = "/admin/users"
    tags = ["users"]

    @get(
        "/{user_id:str}/passkeys",
        **operation("listUserPasskeys", "List a user's passkeys (oldest first)", READ),
    )
    async def list_passkeys(self, request: Req, user_id: str) -> PasskeyList:
        async with reading(request) as session:
            user = await store.get_user(session, user_id)
            records = await repo.list_passkeys(session, user.id)
        return PasskeyList(items=[passkey_read(r) for r in records])

    @delete(
        "/{user_id:str}/passkeys/{passkey_id:str}",
        **operation(
            "deleteUserPasskey",
            "Remove one of a user's passkeys",
            WRITE,
            f"{CREDENTIAL_NOTE} 404 when the user has no passkey with this id.",
            sensitive=True,
        ),
    )
    async def remove_passkey(self, request: Req, user_id: str, passkey_id: str) -> Response[None]:
        key = _passkey_key(passkey_id)
        async with writing(request) as write:
            user = await store.lock_user(write.session, user_id)
            await check_credential_change(request, write.session, user.id)
            if not await repo.delete_passkey(write.session, user.id, key):
                raise _passkey_not_found()
            ended = await end_sessions_after_removal(request, write.session, user.id)
            detail = {"passkeyId": str(key), "sessionsEnded": ended}
            write.audit("user.remove_passkey", user.id, status_code=204, **detail)
        notice = notice_of(request, user.id, "passkey", "removed", by_administrator=True)
        return Response(
            None, status_code=204, background=notice_task(resources_of(request), notice)
        )


ROUTES: list[type[Controller]] = [UserPasskeysController]
