"""``/entity/credentials/password`` and ``/entity/credentials/email`` (contract §4; docs/design.md
"Wire contracts": ``{currentPassword, newPassword}`` and ``{email, currentPassword}``).

Both need ``idp:account:write``, a sign-in within 300 s (RFC 9470, 403 with the step-up
challenge otherwise: :mod:`idp_common.web.recent_auth`) and the current password (a wrong
one is a 422 naming ``currentPassword``; attempts are limited per person, see
:mod:`entity_service.repos.credentials`).

- Password: the new one passes the policy (422 naming ``newPassword``), is hashed off the
  event loop, and in one transaction with the new hash every browser session of the
  person ends with the logout fan-out (reason ``password_changed``) and every refresh
  token of theirs is revoked (:mod:`idp_common.usecases.password_change`). 204. Audited
  ``credentials.password``; after the answer the person is mailed a ``credential_changed``
  notice (:mod:`idp_common.operations.credential_notice`).
- Email: syntax (422 naming ``email``), not used by another person case-insensitively
  (409 naming ``email``); takes effect at once and is unverified when it names another
  mailbox. 200 with the profile as ``GET /entity/profile`` answers it. The ``email_changed``
  notice goes to the old address after the answer
  (:mod:`idp_common.operations.credential_notice`: in the person's saved language, else the
  deployment's, never the request's); a mail failure is audited ``notice.failed`` and the
  change stands. Audited ``credentials.email`` (no addresses in the record).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, post
from litestar.params import JSONBody
from msgspec import Meta

from entity_service.own import WRITE, audit_own, operation
from entity_service.person import person_id, the_person
from entity_service.repos import credentials as store
from entity_service.repos import profile
from entity_service.repos.credentials import NEW_PASSWORD_FIELD
from idp_common.crypto.passwords import hash_password_async
from idp_common.operations.credential_notice import notice_of, notice_task
from idp_common.protocol.password_policy import check_password
from idp_common.storage.repos.audit import AuditEntry
from idp_common.storage.repos.credentials import get_password_hash
from idp_common.usecases.password_change import set_password
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.guard import current_caller

AnyRequest = Request[Any, Any, Any]
Secret = Annotated[str, Meta(max_length=1024)]  # the policy says why a length is refused


class PasswordChange(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    current_password: Secret
    new_password: Secret


class EmailChange(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    email: Annotated[str, Meta(max_length=1024)]
    current_password: Secret


class CredentialsController(Controller):
    path = "/entity/credentials"
    tags = ["credentials"]

    @post(
        "/password",
        status_code=204,
        **operation(
            "changeOwnPassword",
            "Change your password (signs you out everywhere)",
            WRITE,
            "A wrong `currentPassword` or a `newPassword` the policy refuses is a 422 naming it. "
            "Every session of yours ends and every refresh token of yours is revoked; a notice "
            "is mailed to you.",
            step_up=True,
        ),
    )
    async def change_password(
        self, request: AnyRequest, data: JSONBody[PasswordChange]
    ) -> Response[None]:
        resources = resources_of(request)
        subject = current_caller(request).subject
        async with resources.sessions() as session:
            person = await the_person(session, subject)
            stored = await get_password_hash(session, person.id)
        context = (person.email, person.username)
        check_password(data.new_password, context=context, field=NEW_PASSWORD_FIELD)
        await store.verify_current_password(
            resources.limiter, person.id, stored, data.current_password
        )
        new_hash = await hash_password_async(data.new_password)
        entry = AuditEntry(
            action="credentials.password", status_code=204, ip=caller_ip(request), actor=subject
        )
        async with resources.sessions.begin() as session:
            await person_id(session, subject, lock=True)
            await store.password_unchanged(session, person.id, stored or "")
            await set_password(
                session,
                resources.browser_sessions,
                person.id,
                new_hash,
                reason="password_changed",
                nats_prefix=resources.settings.nats_prefix,
                audit=entry,
            )
        notice = notice_of(request, person.id, "password", "changed")
        return Response(None, status_code=204, background=notice_task(resources, notice))

    @post(
        "/email",
        status_code=200,
        **operation(
            "changeOwnEmail",
            "Change your sign-in email address",
            WRITE,
            "A wrong `currentPassword` or a malformed `email` is a 422 naming it; an address "
            "another person uses (case-insensitively) is a 409. Takes effect at once, unverified;"
            " a notice is mailed to the old address. Answers your profile as `GET "
            "/entity/profile` does.",
            step_up=True,
        ),
    )
    async def change_email(
        self, request: AnyRequest, data: JSONBody[EmailChange]
    ) -> Response[profile.ProfileRead]:
        resources = resources_of(request)
        subject = current_caller(request).subject
        store.check_email(data.email)
        async with resources.sessions() as session:
            user_id = await person_id(session, subject)
            stored = await get_password_hash(session, user_id)
        await store.verify_current_password(
            resources.limiter, user_id, stored, data.current_password
        )
        async with resources.sessions.begin() as session:
            before = await the_person(session, subject, lock=True)
            moved = await store.change_email(session, before, data.email)
            audit_own(request, session, user_id, "credentials.email", otherMailbox=moved)
            fields = await profile.fields_of(session, user_id)
            answer = await profile.read_profile(
                session, user_id, fields, resources.settings.issuer_base
            )
        notices = (
            [notice_of(request, user_id, "email", "changed", to=before.email)] if moved else []
        )
        return Response(answer, status_code=200, background=notice_task(resources, *notices))


ROUTES = [CredentialsController]
