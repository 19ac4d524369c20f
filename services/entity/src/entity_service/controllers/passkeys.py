"""``/entity/passkeys``: the caller's passkeys (WebAuthn Level 3 §7.1 registration;
docs/passkeys.md).

- ``GET`` (``idp:account:read``): ``{items: [PasskeyRead]}``, oldest first.
- ``POST /registration-options`` (``idp:account:write`` and a recent sign-in, RFC 9470):
  the ``PublicKeyCredentialCreationOptionsJSON`` for ``navigator.credentials.create()``, with
  a fresh single-use challenge bound to the caller (:mod:`idp_common.state.passkey_ceremonies`)
  and the caller's passkeys as ``excludeCredentials``.
- ``POST`` ``{name?, credential}`` (same needs): the challenge is found from the response's
  ``clientDataJSON`` and spent whatever follows; it must be a registration challenge given
  to the caller (else 422 ``passkey.challenge_unknown``); the response must prove it at this
  origin and RP id with user verification (else 422 ``passkey.rejected`` with the reason).
  Both refusals name ``credential`` and are audited ``passkey.registration_refused``. 201
  with the new passkey; 409 past :data:`MAX_PASSKEYS_PER_PERSON` or for a credential already
  registered (anyone's). Audited ``passkey.registered``.
- ``PATCH /{id}`` ``{name}`` (``idp:account:write``) renames; ``DELETE /{id}`` (and a recent
  sign-in) removes. Another person's passkey is a 404, like an unknown one. Audited
  ``passkey.renamed`` and ``passkey.removed``.

Audit rows carry the passkey's id and the refusal's reason, never the credential JSON.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Final

import msgspec
from litestar import Controller, Request, Response, delete, get, patch, post
from litestar.params import JSONBody, Parameter
from msgspec import Meta

from entity_service.own import READ, WRITE, audit_own, credential_removed, operation
from entity_service.person import person_id, the_person
from entity_service.repos import passkeys as store
from idp_common.errors import FieldError, InvalidArgument
from idp_common.operations.credential_notice import notice_of, notice_task
from idp_common.passkeys.ceremony import (
    PasskeyRejected,
    ceremony_challenge,
    registration_options,
    verify_registration,
)
from idp_common.passkeys.wire import PasskeyList, PasskeyRead, passkey_read
from idp_common.state.passkey_ceremonies import Ceremony
from idp_common.storage.repos import passkeys as repo
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.storage.repos.passkeys import MAX_PASSKEYS_PER_PERSON
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.guard import current_caller

AnyRequest = Request[Any, Any, Any]
#: A registration response is a few hundred bytes (a few KiB with an attestation chain).
MAX_BODY_BYTES: Final = 64 * 1024
RawName = Annotated[str, Meta(max_length=1024)]  # the name rule says why a length is refused
PasskeyId = Annotated[str, Parameter(description="the passkey's `id` as listed")]


class PasskeyCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``credential``: the browser's ``PublicKeyCredential.toJSON()`` (RegistrationResponseJSON)."""

    credential: dict[str, Any]
    name: RawName = store.DEFAULT_NAME


class PasskeyRename(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: RawName


async def _refuse(
    request: AnyRequest, person: uuid.UUID, reason: str, code: str, message: str
) -> InvalidArgument:
    """Audit the refused registration (its own transaction) and hand back the 422."""
    entry = AuditEntry(
        action="passkey.registration_refused",
        status_code=422,
        ip=caller_ip(request),
        actor=current_caller(request).subject,
        target_type="user",
        target=str(person),
        detail={"reason": reason},
    )
    await record_refusal(resources_of(request).sessions, entry)
    return InvalidArgument(
        f"credential {message}", code=code, errors=[FieldError("credential", message)]
    )


class PasskeysController(Controller):
    path = "/entity/passkeys"
    tags = ["credentials"]

    @get(**operation("listOwnPasskeys", "List your passkeys (oldest first)", READ))
    async def list_passkeys(self, request: AnyRequest) -> PasskeyList:
        async with resources_of(request).sessions() as session:
            person = await person_id(session, current_caller(request).subject)
            records = await repo.list_passkeys(session, person)
        return PasskeyList(items=[passkey_read(r) for r in records])

    @post(
        "/registration-options",
        status_code=200,
        **operation(
            "passkeyRegistrationOptions",
            "Start registering a passkey",
            WRITE,
            "Answers the `PublicKeyCredentialCreationOptionsJSON` to pass to "
            "`navigator.credentials.create()` (or `startRegistration`); its challenge is "
            "yours, answers one registration, and expires.",
            step_up=True,
        ),
    )
    async def registration_options(self, request: AnyRequest) -> dict[str, Any]:
        resources = resources_of(request)
        async with resources.sessions() as session:
            person = await the_person(session, current_caller(request).subject)
            exclude = await repo.credential_ids(session, person.id)
        ceremony = Ceremony(purpose="register", subject=str(person.id))
        challenge = await resources.passkey_ceremonies.begin(ceremony)
        return registration_options(
            resources.relying_party,
            challenge=challenge,
            user_id=person.id,
            user_name=person.email,
            display_name=person.display_name or "",
            exclude=exclude,
        )

    @post(
        status_code=201,
        request_max_body_size=MAX_BODY_BYTES,
        **operation(
            "registerOwnPasskey",
            "Finish registering a passkey",
            WRITE,
            "`credential`: the browser's registration response to the options; `name` "
            "(1-64 characters, default `Passkey`). A challenge that is unknown, used, expired "
            "or not yours, or a response that does not prove it (origin, RP id, user "
            "verification, signature), is a 422 naming `credential`. 409 for a passkey "
            f"already registered, or past {MAX_PASSKEYS_PER_PERSON} passkeys.",
            step_up=True,
        ),
    )
    async def register(
        self, request: AnyRequest, data: JSONBody[PasskeyCreate]
    ) -> Response[PasskeyRead]:
        name = store.passkey_name(data.name)
        resources = resources_of(request)
        async with resources.sessions() as session:  # not a person: 404 before anything
            person = await person_id(session, current_caller(request).subject)
        challenge = ceremony_challenge(data.credential)
        ceremony = None if challenge is None else await resources.passkey_ceremonies.take(challenge)
        if challenge is None or not _registers(ceremony, person):
            message = "answers no registration challenge of yours (unknown, used or expired)"
            raise await _refuse(
                request, person, "challenge_unknown", "passkey.challenge_unknown", message
            )
        try:
            registered = verify_registration(
                resources.relying_party, data.credential, challenge=challenge
            )
        except PasskeyRejected as rejected:
            message = f"was refused: {rejected.reason}"
            raise await _refuse(
                request, person, rejected.reason, "passkey.rejected", message
            ) from None
        async with resources.sessions.begin() as session:
            person = await person_id(session, str(person), lock=True)
            record = await store.add_own_passkey(session, person, registered, name)
            audit_own(
                request,
                session,
                person,
                "passkey.registered",
                status_code=201,
                passkeyId=str(record.id),
                synced=record.backup_eligible,
                aaguid=record.aaguid,
            )
        notice = notice_of(request, person, "passkey", "added")
        return Response(
            passkey_read(record), status_code=201, background=notice_task(resources, notice)
        )

    @patch(
        "/{passkey_id:str}",
        **operation(
            "renameOwnPasskey",
            "Rename one of your passkeys",
            WRITE,
            "`name`: 1-64 characters (422 naming `name`). A passkey that is not yours is a 404.",
        ),
    )
    async def rename(
        self, request: AnyRequest, passkey_id: PasskeyId, data: JSONBody[PasskeyRename]
    ) -> PasskeyRead:
        name = store.passkey_name(data.name)
        key = store.passkey_key(passkey_id)
        async with resources_of(request).sessions.begin() as session:
            person = await person_id(session, current_caller(request).subject)
            record = await repo.rename_passkey(session, person, key, name)
            if record is None:
                raise store.passkey_not_found()
            audit_own(request, session, person, "passkey.renamed", passkeyId=str(key))
        return passkey_read(record)

    @delete(
        "/{passkey_id:str}",
        status_code=204,
        **operation(
            "deleteOwnPasskey",
            "Remove one of your passkeys",
            WRITE,
            "It no longer signs you in, and every other session of yours ends. A passkey "
            "that is not yours is a 404.",
            step_up=True,
        ),
    )
    async def remove(self, request: AnyRequest, passkey_id: PasskeyId) -> Response[None]:
        key = store.passkey_key(passkey_id)
        resources = resources_of(request)
        async with resources.sessions.begin() as session:
            person = await person_id(session, current_caller(request).subject, lock=True)
            if not await repo.delete_passkey(session, person, key):
                raise store.passkey_not_found()
            ended = await credential_removed(request, session, person)
            detail = {"passkeyId": str(key), "sessionsEnded": ended}
            audit_own(request, session, person, "passkey.removed", status_code=204, **detail)
        notice = notice_of(request, person, "passkey", "removed")
        return Response(None, status_code=204, background=notice_task(resources, notice))


def _registers(ceremony: Ceremony | None, person: uuid.UUID) -> bool:
    """The challenge was given to ``person`` for a registration (not a sign-in's, not
    another person's)."""
    return ceremony is not None and (ceremony.purpose, ceremony.subject) == (
        "register",
        str(person),
    )


ROUTES = [PasskeysController]
