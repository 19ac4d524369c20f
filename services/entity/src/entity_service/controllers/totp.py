"""``/entity/totp``: the caller's authenticator (contract §4; docs/design.md "Wire contracts":
``POST /entity/totp/enroll`` → ``{secret, otpauthUri}``, ``POST /entity/totp/confirm``
``{code}``).

- ``GET`` (``idp:account:read``): ``{enrolled, pending, confirmedAt?, recoveryCodesLeft?}``.
- ``POST /enroll``, ``POST /confirm`` and ``DELETE`` need ``idp:account:write`` and a sign-in
  within 300 s (RFC 9470: :mod:`idp_common.web.recent_auth`).
- ``POST /enroll`` (201) answers ``{secret, otpauthUri, qrCode}`` (``qrCode``: an SVG data URI
  of the URI; the issuer shown in the app is the host of ``SVC_ISSUER``) and keeps the secret
  sealed, pending; enrolling again replaces a pending secret; with a confirmed authenticator
  it is a 409 (remove it first).
- ``POST /confirm`` with a current code (±1 step; else 422 naming ``code``) confirms it and
  answers ``{confirmedAt, recoveryCodes}``: the one-time recovery codes, shown only here.
  Nothing pending (or already confirmed) is a 409. From then on sign-in asks for a code.
- ``DELETE`` (204, also when there was none) removes the authenticator and its codes.
- Without ``SVC_SECRETS_KEY`` the writes answer 503. Audited ``totp.enroll``,
  ``totp.confirm``, ``totp.delete``; never a secret or a code.
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import datetime
from typing import Annotated, Any
from urllib.parse import urlsplit

import msgspec
import segno
from litestar import Controller, Request, Response, delete, get, post
from litestar.params import JSONBody
from msgspec import Meta

from entity_service.own import READ, WRITE, audit_own, operation, remove_own
from entity_service.person import person_id, the_person
from idp_common.crypto.secretbox import SecretboxError, open_sealed, seal, totp_context
from idp_common.errors import Conflict, FieldError, InvalidArgument, ServiceUnavailable
from idp_common.operations.credential_notice import notice_of, notice_task
from idp_common.protocol import rfc6238_totp
from idp_common.storage.repos import credentials as store
from idp_common.web.caller import resources_of
from idp_common.web.guard import current_caller

log = logging.getLogger("idp.entity.totp")
AnyRequest = Request[Any, Any, Any]


class TotpStatus(msgspec.Struct, frozen=True, kw_only=True, rename="camel", omit_defaults=True):
    """``enrolled``: a confirmed authenticator (sign-in asks for a code); ``pending``: an
    enrolment waiting for its first code."""

    enrolled: bool
    pending: bool
    confirmed_at: datetime | None = None
    recovery_codes_left: int | None = None


class TotpEnrolment(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    secret: str
    otpauth_uri: str
    qr_code: str


class TotpConfirm(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    code: Annotated[str, Meta(max_length=20)]


class TotpConfirmed(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    confirmed_at: datetime
    recovery_codes: list[str]


def _secrets_key(request: AnyRequest) -> bytes:
    key = resources_of(request).settings.secrets_key_bytes
    if key is None:
        raise ServiceUnavailable(
            "authenticators are not available: SVC_SECRETS_KEY is not configured",
            code="entity.totp_unavailable",
        )
    return key


def _open_secret(sealed: bytes, key: bytes, person: uuid.UUID) -> str:
    try:
        return open_sealed(sealed, key=key, context=totp_context(person)).decode("ascii")
    except (SecretboxError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        log.error("TOTP secret of %s is unusable: %s", person, exc)
        raise ServiceUnavailable(
            "the pending authenticator cannot be read; enroll again", code="entity.totp_unusable"
        ) from exc


def _not_pending(confirmed: bool) -> Conflict:
    if confirmed:
        return Conflict("the authenticator is already confirmed", code="entity.totp_confirmed")
    return Conflict(
        "no authenticator is being set up: POST /entity/totp/enroll first",
        code="entity.totp_not_enrolling",
    )


class TotpController(Controller):
    path = "/entity/totp"
    tags = ["authenticator"]

    @get(
        **operation(
            "getOwnTotp",
            "Is an authenticator set up",
            READ,
            "`confirmedAt` and `recoveryCodesLeft` are present once the authenticator is "
            "confirmed.",
        ),
    )
    async def read_totp(self, request: AnyRequest) -> TotpStatus:
        async with resources_of(request).sessions() as session:
            person = await person_id(session, current_caller(request).subject)
            state = await store.get_totp(session, person)
            if state is None or state.confirmed_at is None:
                return TotpStatus(enrolled=False, pending=state is not None)
            return TotpStatus(
                enrolled=True,
                pending=False,
                confirmed_at=state.confirmed_at,
                recovery_codes_left=await store.recovery_codes_left(session, person),
            )

    @post(
        "/enroll",
        status_code=201,
        **operation(
            "enrollOwnTotp",
            "Start setting up an authenticator",
            WRITE,
            "Answers the secret, its `otpauth://` URI and a QR code (SVG data URI) once; confirm "
            "with a code. A pending enrolment is replaced; a confirmed authenticator is a 409 "
            "(remove it first). 503 when the deployment has no secrets key.",
            step_up=True,
        ),
    )
    async def enroll(self, request: AnyRequest) -> TotpEnrolment:
        resources = resources_of(request)
        key = _secrets_key(request)
        secret = rfc6238_totp.new_secret()
        async with resources.sessions.begin() as session:
            person = await the_person(session, current_caller(request).subject)
            user_id = person.id
            sealed = seal(secret.encode("ascii"), key=key, context=totp_context(user_id))
            if not await store.start_totp_enrolment(session, user_id, sealed):
                raise Conflict(
                    "an authenticator is already set up; remove it before enrolling another",
                    code="entity.totp_already_enrolled",
                )
            audit_own(request, session, user_id, "totp.enroll", status_code=201)
        issuer = urlsplit(resources.settings.issuer).hostname or resources.settings.issuer
        uri = rfc6238_totp.provisioning_uri(secret, account=person.email, issuer=issuer)
        qr_code = segno.make(uri, error="m").svg_data_uri(scale=4)
        return TotpEnrolment(secret=secret, otpauth_uri=uri, qr_code=qr_code)

    @post(
        "/confirm",
        status_code=200,
        **operation(
            "confirmOwnTotp",
            "Finish setting up the authenticator",
            WRITE,
            "`code`: the authenticator's current code (a wrong one is a 422 naming `code`). "
            "Answers the one-time recovery codes, shown only here. From then on sign-in asks for "
            "a code. 409 when nothing is being set up.",
            step_up=True,
        ),
    )
    async def confirm(
        self, request: AnyRequest, data: JSONBody[TotpConfirm]
    ) -> Response[TotpConfirmed]:
        resources = resources_of(request)
        key = _secrets_key(request)
        async with resources.sessions.begin() as session:
            person = await person_id(session, current_caller(request).subject, lock=True)
            state = await store.get_totp(session, person)
            if state is None or state.confirmed_at is not None:
                raise _not_pending(state is not None)
            secret = _open_secret(state.secret_encrypted, key, person)
            step = rfc6238_totp.match_totp_step(secret, data.code, now=time.time())
            if step is None:
                raise InvalidArgument(
                    "code is not the authenticator's current code",
                    code="entity.totp_wrong_code",
                    errors=[FieldError("code", "is not the authenticator's current code")],
                )
            codes = rfc6238_totp.new_recovery_codes()
            digests = [rfc6238_totp.recovery_code_digest(code) for code in codes]
            confirmed_at = await store.confirm_totp(
                session, person, step, [d for d in digests if d is not None]
            )
            if confirmed_at is None:  # unreachable while the row lock is held
                raise _not_pending(True)
            audit_own(request, session, person, "totp.confirm", recoveryCodes=len(codes))
        answer = TotpConfirmed(confirmed_at=confirmed_at, recovery_codes=codes)
        added = [
            notice_of(request, person, c, "added") for c in ("authenticator", "recovery_codes")
        ]
        return Response(answer, background=notice_task(resources, *added))

    @delete(
        status_code=204,
        **operation(
            "deleteOwnTotp",
            "Remove the authenticator",
            WRITE,
            "Removes the authenticator (confirmed or pending) and its recovery codes; 204 also "
            "when there was none.",
            step_up=True,
        ),
    )
    async def remove(self, request: AnyRequest) -> Response[None]:
        return await remove_own(
            request,
            store.remove_totp,
            ("authenticator", "recovery_codes"),
            "totp.delete",
            "hadAuthenticator",
        )


ROUTES = [TotpController]
