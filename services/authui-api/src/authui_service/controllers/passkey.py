"""``POST /api/v1/auth/passkey/options`` and ``POST /api/v1/auth/passkey``: sign in with a
passkey (W3C WebAuthn Level 3 §7.2; docs/passkeys.md; docs/security.md
"Passkeys").

- At the ``password`` step a passkey is the whole sign-in: discoverable (no
  ``allowCredentials``), the response's ``userHandle`` must name the passkey's holder, user
  verification required; ``amr`` [hwk|swk, user, mfa], ``acr`` ``urn:idp:acr:phr``.
- At the ``passkey`` step, or at the ``totp`` step of a person who also holds passkeys, a
  passkey of the challenge's person is the second factor: ``amr`` [pwd (or face),
  hwk|swk, (user), mfa], ``acr`` ``urn:idp:acr:phr``. It is counted on the person's
  ``passkey`` second-factor throttle, like a code.

Each options request begins a ceremony bound to the sign-in challenge
(:mod:`idp_common.state.passkey_ceremonies`); the answer takes it (single use: a replayed
response finds nothing) before anything else is checked. Every refusal is one 401
``auth.invalid_credentials`` audited ``login.failed`` with its reason (``challenge_unknown``,
``unknown_passkey``, ``other_person``, ``disabled``, ``clone_suspected``, ``wrong_origin``,
``wrong_rp_id``, ``user_verification_missing``, ``bad_signature``, ``malformed``,
``concurrent_use``). A validly signed response whose counter did not grow flags the
passkey (``clone_suspected_at``, audited ``passkey.clone_suspected`` in a transaction of its
own, kept although the sign-in fails): it is refused from then on.

A first-factor attempt counts nothing per person: an assertion cannot be guessed, and a
counter would let anyone who saw a credential id lock its holder out; the per-address limit
(``TOKEN_PER_IP``) applies to both routes. The credential JSON is never logged or audited.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, NoReturn

from litestar import Controller, Request, Response, post
from litestar.params import JSONBody

from authui_service import flow, outcomes
from authui_service.attempts import (
    PASSKEY,
    second_factor_attempt,
    second_factor_failed,
    second_factor_passed,
)
from authui_service.context import SigninContext, context_of
from authui_service.schemas import PasskeyBody, PasskeyOptionsBody, StepAnswer
from authui_service.steps import answer_step, refuse_credentials
from idp_common.errors import PermissionDenied
from idp_common.passkeys.ceremony import (
    Assertion,
    PasskeyRejected,
    authentication_options,
    ceremony_challenge,
    credential_id_of,
    user_handle_of,
    verify_assertion,
)
from idp_common.protocol.constants import ACR_PHISHING_RESISTANT, AMR_FACE, AMR_MFA, AMR_PASSWORD
from idp_common.protocol.w3c_webauthn import passkey_amr, sign_count_regressed
from idp_common.state.challenges import Challenge, Step
from idp_common.state.passkey_ceremonies import Ceremony
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.passkeys import (
    PasskeyRecord,
    credential_ids,
    find_by_credential_id,
    flag_clone,
    record_use,
)
from idp_common.storage.repos.users import UserRecord, get_user
from idp_common.web.caller import caller_ip

log = logging.getLogger("idp.signin.passkey")
AnyRequest = Request[Any, Any, Any]
#: An assertion is a few hundred bytes (a few KiB with an RSA key and extensions).
MAX_BODY_BYTES: Final = 64 * 1024
#: The steps at which a passkey may answer.
PASSKEY_STEPS: Final[tuple[Step, ...]] = ("password", "totp", "passkey")


class Refused(Exception):
    """Why an assertion does not sign in; the person and passkey it named, when known."""

    def __init__(
        self, reason: str, user: UserRecord | None = None, passkey: PasskeyRecord | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.user = user
        self.passkey = passkey


@dataclass(frozen=True)
class Proven:
    """A verified assertion, its counter recorded."""

    user: UserRecord
    passkey: PasskeyRecord
    assertion: Assertion

    def key_methods(self) -> list[str]:
        """``hwk`` or ``swk`` (synced when either registration or this use says so), and
        ``user`` when the authenticator verified the person."""
        synced = self.passkey.backup_eligible or self.assertion.backup_eligible
        methods = passkey_amr(
            backup_eligible=synced,
            user_verified=self.assertion.user_verified,
            after_password=False,
        )
        return [m for m in methods if m != AMR_MFA]


def not_offered() -> PermissionDenied:
    return PermissionDenied(
        "a passkey is not offered at this step", code="auth.passkey_not_offered"
    )


class PasskeySigninController(Controller):
    path = "/api/v1/auth"
    tags = ["sign-in"]

    @post(
        "/passkey/options",
        operation_id="passkeyOptions",
        status_code=200,
        request_max_body_size=MAX_BODY_BYTES,
    )
    async def options(
        self, request: AnyRequest, data: JSONBody[PasskeyOptionsBody]
    ) -> dict[str, Any]:
        """PublicKeyCredentialRequestOptionsJSON for this step: discoverable with user
        verification required at the password step; the person's passkeys after it."""
        ctx = context_of(request)
        await ctx.limit_signin(caller_ip(request))
        challenge = await flow.load_challenge_at(ctx, data.challenge, PASSKEY_STEPS)
        first = challenge.step == "password"
        allow: list[tuple[bytes, list[str]]] = []
        if not first:
            async with ctx.resources.sessions() as db:
                allow = await credential_ids(db, flow.user_uuid(challenge))
            if not allow:
                raise not_offered()
        ceremony = Ceremony(
            purpose="signin",
            subject=challenge.id,
            user_id=None if first else challenge.user_id,
            user_verification=first,
        )
        token = await ctx.resources.passkey_ceremonies.begin(ceremony)
        return authentication_options(
            ctx.resources.relying_party, challenge=token, allow=allow, user_verification=first
        )

    @post(
        "/passkey",
        operation_id="passkeySignin",
        status_code=200,
        request_max_body_size=MAX_BODY_BYTES,
    )
    async def passkey(
        self, request: AnyRequest, data: JSONBody[PasskeyBody]
    ) -> Response[StepAnswer]:
        """Sign in with a passkey (the first step) or prove one (the second): 401 alike
        for every refusal."""
        ctx = context_of(request)
        await ctx.limit_signin(caller_ip(request))
        challenge = await flow.load_challenge_at(ctx, data.challenge, PASSKEY_STEPS)
        if challenge.step == "password":
            return await _first_factor(ctx, request, challenge, data.credential)
        return await _second_factor(ctx, request, challenge, data.credential)


async def _first_factor(
    ctx: SigninContext, request: AnyRequest, challenge: Challenge, credential: Mapping[str, Any]
) -> Response[StepAnswer]:
    """The passkey names its person and is their whole sign-in."""
    try:
        proven = await _prove(ctx, request, challenge, credential, person=None)
    except Refused as refused:
        await _refuse(ctx, request, challenge, refused, refused.user)
    outcomes.counted(outcomes.METHOD_PASSKEY, outcomes.SUCCESS)
    challenge.user_id = str(proven.user.id)
    challenge.auth_time = int(time.time())
    challenge.password_stamp = None  # no password was verified
    challenge.amr = [*proven.key_methods(), AMR_MFA]  # held, and verified on the device
    challenge.acr = ACR_PHISHING_RESISTANT
    return answer_step(await flow.finish_authentication(ctx, request, challenge, proven.user))


async def _second_factor(
    ctx: SigninContext, request: AnyRequest, challenge: Challenge, credential: Mapping[str, Any]
) -> Response[StepAnswer]:
    """A passkey of the challenge's person after the password (or the face)."""
    async with ctx.resources.sessions() as db:
        user = await get_user(db, flow.user_uuid(challenge))
    if user is None or user.disabled:
        await ctx.store.delete_challenge(challenge.id)
        raise flow.challenge_ended()
    verdict = await second_factor_attempt(ctx, request, PASSKEY, user, challenge)
    try:
        proven = await _prove(ctx, request, challenge, credential, person=user)
    except Refused as refused:
        await second_factor_failed(ctx, request, PASSKEY, user, challenge, verdict)
        await _refuse(ctx, request, challenge, refused, user)
    await second_factor_passed(ctx, PASSKEY, user)
    outcomes.counted(outcomes.METHOD_PASSKEY, outcomes.SUCCESS)
    first = [m for m in challenge.amr if m in (AMR_PASSWORD, AMR_FACE)] or [AMR_PASSWORD]
    challenge.amr = [*first, *proven.key_methods(), AMR_MFA]
    challenge.acr = ACR_PHISHING_RESISTANT
    return answer_step(await flow.finish_authentication(ctx, request, challenge, user))


async def _prove(
    ctx: SigninContext,
    request: AnyRequest,
    challenge: Challenge,
    credential: Mapping[str, Any],
    *,
    person: UserRecord | None,
) -> Proven:
    """The assertion's ceremony, passkey and person, its signature and its counter;
    ``person``: whose passkey it must be (None: whoever its ``userHandle`` names)."""
    ceremony, signed = await _take_ceremony(ctx, challenge, credential)
    passkey, holder = await _passkey_and_holder(ctx, credential)
    reason = _holder_refusal(passkey, holder, person, credential)
    if reason is not None or holder is None:
        raise Refused(reason or "disabled", holder, passkey)
    try:
        assertion = verify_assertion(
            ctx.resources.relying_party,
            credential,
            challenge=signed,
            public_key=passkey.public_key,
            require_user_verification=ceremony.user_verification or person is None,
        )
    except PasskeyRejected as rejected:
        raise Refused(rejected.reason, holder, passkey) from None
    if sign_count_regressed(passkey.sign_count, assertion.sign_count):
        await _flag_clone(ctx, request, challenge, passkey, assertion.sign_count)
        raise Refused("clone_suspected", holder, passkey)
    async with ctx.resources.sessions.begin() as db:
        used = await record_use(
            db,
            passkey.id,
            seen_count=passkey.sign_count,
            new_count=assertion.sign_count,
            backed_up=assertion.backed_up,
        )
    if not used:  # another use moved the counter meanwhile, or it was flagged or removed
        raise Refused("concurrent_use", holder, passkey)
    return Proven(holder, passkey, assertion)


async def _take_ceremony(
    ctx: SigninContext, challenge: Challenge, credential: Mapping[str, Any]
) -> tuple[Ceremony, bytes]:
    """The sign-in ceremony this response answers, removed as it is read (single use): a
    registration's, another sign-in's, an expired or an answered one is refused."""
    signed = ceremony_challenge(credential)
    ceremony = None if signed is None else await ctx.resources.passkey_ceremonies.take(signed)
    if (
        signed is None
        or ceremony is None
        or ceremony.purpose != "signin"
        or ceremony.subject != challenge.id
    ):
        raise Refused("challenge_unknown")
    return ceremony, signed


async def _passkey_and_holder(
    ctx: SigninContext, credential: Mapping[str, Any]
) -> tuple[PasskeyRecord, UserRecord | None]:
    credential_id = credential_id_of(credential)
    if credential_id is None:
        raise Refused("malformed")
    async with ctx.resources.sessions() as db:
        passkey = await find_by_credential_id(db, credential_id)
        holder = None if passkey is None else await get_user(db, passkey.user_id)
    if passkey is None:  # never registered, or removed
        raise Refused("unknown_passkey")
    return passkey, holder


def _holder_refusal(
    passkey: PasskeyRecord,
    holder: UserRecord | None,
    person: UserRecord | None,
    credential: Mapping[str, Any],
) -> str | None:
    """Why this passkey cannot sign this person in, before its signature is checked."""
    if person is None:
        # Discoverable: the authenticator names the person; it must be the key's holder.
        handle = user_handle_of(credential)
        if handle is None or not hmac.compare_digest(handle, passkey.user_id.bytes):
            return "other_person"
    elif passkey.user_id != person.id:
        return "other_person"
    if holder is None or holder.disabled:
        return "disabled"
    if passkey.clone_suspected_at is not None:
        return "clone_suspected"
    return None


async def _flag_clone(
    ctx: SigninContext,
    request: AnyRequest,
    challenge: Challenge,
    passkey: PasskeyRecord,
    presented: int,
) -> None:
    """WebAuthn §7.2 step 21: the counter did not grow; the passkey is refused from now
    on (committed here, whatever the sign-in answers)."""
    entry = AuditEntry(
        action="passkey.clone_suspected",
        status_code=401,
        ip=caller_ip(request),
        actor=str(passkey.user_id),
        target_type="user",
        target=str(passkey.user_id),
        detail={
            "passkeyId": str(passkey.id),
            "storedCount": passkey.sign_count,
            "presentedCount": presented,
            "client": challenge.client_id,
        },
    )
    async with ctx.resources.sessions.begin() as db:
        await flag_clone(db, passkey.id)
        write_audit(db, entry)
    log.warning(
        "passkey %s of %s flagged as a possible clone (counter %d after %d)",
        passkey.id,
        passkey.user_id,
        presented,
        passkey.sign_count,
    )


async def _refuse(
    ctx: SigninContext,
    request: AnyRequest,
    challenge: Challenge,
    refused: Refused,
    actor: UserRecord | None,
) -> NoReturn:
    detail = {"reason": refused.reason, "method": outcomes.METHOD_PASSKEY}
    if challenge.step != "password":
        detail["step"] = challenge.step
    if refused.passkey is not None:
        detail["passkeyId"] = str(refused.passkey.id)
    await refuse_credentials(ctx, request, "", challenge, actor, detail)
