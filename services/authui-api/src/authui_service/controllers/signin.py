"""``/api/v1/auth/challenge/{id}``, ``/login``, ``/totp``, ``/consent`` (DESIGN.md "Wire
contracts": the shapes are fixed there)."""

from __future__ import annotations

import logging
import time
from typing import Any, NoReturn

from litestar import Controller, Request, Response, get, post
from litestar.params import JSONBody

from authui_service import flow
from authui_service.attempts import (
    CODE,
    first_factor_attempt,
    second_factor_attempt,
    second_factor_failed,
    second_factor_passed,
)
from authui_service.context import SigninContext, context_of
from authui_service.rules import challenge_kind, error_redirect, face_alone_allowed
from authui_service.schemas import (
    ChallengeRead,
    ClientInfo,
    ConsentBody,
    LoginBody,
    ScopeInfo,
    StepAnswer,
    TotpBody,
)
from authui_service.store import get_totp, set_password_hash, use_totp_step
from authui_service.throttle import Verdict
from authui_service.totp import spend_recovery_code
from idp_common.crypto.passwords import (
    hash_password_async,
    needs_rehash,
    verify_password_async,
    verify_password_dummy_async,
)
from idp_common.crypto.secretbox import SecretboxError, open_sealed, totp_context
from idp_common.errors import (
    NotFound,
    PermissionDenied,
    ServiceUnavailable,
    Unauthenticated,
)
from idp_common.protocol.constants import (
    ACR_FACE,
    ACR_ONE_FACTOR,
    ACR_TWO_FACTOR,
    AMR_FACE,
    AMR_MFA,
    AMR_OTP,
    AMR_PASSWORD,
    OIDC_SCOPE_DESCRIPTIONS,
)
from idp_common.protocol.oidc_authorize import grant_scopes
from idp_common.protocol.rfc6238_totp import match_totp_step, recovery_code_digest
from idp_common.state.challenges import Challenge, Step
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.clients import ClientRecord, scope_descriptions
from idp_common.storage.repos.consents import grant_consent
from idp_common.storage.repos.users import (
    SignInFacts,
    UserRecord,
    effective_scopes,
    get_user,
    sign_in_facts,
)
from idp_common.web.caller import caller_ip

log = logging.getLogger("idp.signin")
AnyRequest = Request[Any, Any, Any]
MAX_WRONG_CODES = 5
RECOVERY_CODE = "recovery_code"
WRONG_CREDENTIALS = "wrong email or password"


def answer_step(finished: flow.Finished) -> Response[StepAnswer]:
    """The step's answer, with the session cookie when a session started."""
    headers = {"Set-Cookie": finished.set_cookie} if finished.set_cookie else None
    return Response(finished.answer, status_code=200, headers=headers)


async def first_factor_passed(
    ctx: SigninContext, request: AnyRequest, challenge: Challenge, facts: SignInFacts, method: str
) -> Response[StepAnswer]:
    """The password or the face matched: ask for the code when the person has an
    authenticator; after a password, for the face when the deployment takes the face as a
    second factor and the person enrolled one; else finish (consent or done). A face
    alone is its own, weakest level (``urn:idp:acr:face``)."""
    user = facts.user
    challenge.user_id = str(user.id)
    challenge.auth_time = int(time.time())
    challenge.amr = [method]
    challenge.acr = ACR_FACE if method == AMR_FACE else ACR_ONE_FACTOR
    second: Step | None = None
    if facts.has_totp:
        second = "totp"
    elif method == AMR_PASSWORD and facts.has_face and face_second_step(ctx):
        second = "face"
    if second is not None:
        challenge.step = second
        await ctx.store.save_challenge(challenge)
        return Response(StepAnswer(next=second), status_code=200)
    return answer_step(await flow.finish_authentication(ctx, request, challenge, user))


def face_second_step(ctx: SigninContext) -> bool:
    """The face follows the password (``SVC_FACE_SIGNIN=second_factor``, face stack on)."""
    return ctx.settings.face_signin == "second_factor" and ctx.face.available


def face_offered(ctx: SigninContext, challenge: Challenge) -> bool:
    """The sign-in page offers the face at the challenge's step."""
    if not ctx.face.available:
        return False
    if challenge.step == "face":
        return True
    return challenge.step == "password" and face_alone_allowed(
        ctx.settings.face_signin, challenge.acr_values
    )


async def grantable_scopes(
    ctx: SigninContext, challenge: Challenge, client: ClientRecord
) -> list[str]:
    """The requested scopes this person may give this client (what a code would carry):
    consent is asked and remembered for these only."""
    if challenge.user_id is None:
        return list(challenge.scopes)
    async with ctx.resources.sessions() as db:
        held = await effective_scopes(db, flow.user_uuid(challenge))
    return grant_scopes(challenge.scopes, client.scopes, held)


class SigninController(Controller):
    path = "/api/v1/auth"
    tags = ["sign-in"]

    @get("/challenge/{challenge_id:str}", operation_id="getChallenge")
    async def get_challenge(self, request: AnyRequest, challenge_id: str) -> ChallengeRead:
        """Read a pending login or consent challenge (404 when unknown or expired)."""
        ctx = context_of(request)
        challenge = await ctx.store.get_challenge(challenge_id)
        if challenge is None:
            raise NotFound(
                "no such sign-in request, or it expired", code="auth.challenge_not_found"
            )
        client = await flow.load_client(ctx, challenge)
        shown = challenge.scopes
        if challenge.step == "consent":
            shown = await grantable_scopes(ctx, challenge, client)
        async with ctx.resources.sessions() as db:
            known = await scope_descriptions(db, list(shown))
        scopes = [
            ScopeInfo(value, known.get(value) or OIDC_SCOPE_DESCRIPTIONS.get(value) or value)
            for value in shown
        ]
        return ChallengeRead(
            id=challenge.id,
            kind=challenge_kind(challenge.step),
            next=challenge.step,
            client=ClientInfo(client.client_id, client.name),
            login_hint=challenge.login_hint,
            scopes=scopes,
            face=face_offered(ctx, challenge),
        )

    @post("/login", operation_id="login", status_code=200)
    async def login(self, request: AnyRequest, data: JSONBody[LoginBody]) -> Response[StepAnswer]:
        """Sign in with a password: 401 alike for a wrong password and an unknown account."""
        ctx = context_of(request)
        await ctx.limit_signin(caller_ip(request))
        challenge = await flow.load_challenge(ctx, data.challenge, "password")
        account = data.email.strip().lower()
        await first_factor_attempt(ctx, request, account, challenge)
        facts = await _verify_password(ctx, request, account, data.password, challenge)
        return await first_factor_passed(ctx, request, challenge, facts, AMR_PASSWORD)

    @post("/totp", operation_id="verifyTotp", status_code=200)
    async def totp(self, request: AnyRequest, data: JSONBody[TotpBody]) -> Response[StepAnswer]:
        """Verify the code of the person's authenticator (±1 step, never the same step twice)."""
        ctx = context_of(request)
        await ctx.limit_signin(caller_ip(request))
        challenge = await flow.load_challenge(ctx, data.challenge, "totp")
        if ctx.secrets_key is None:
            raise ServiceUnavailable(
                "one-time codes cannot be checked: SVC_SECRETS_KEY is not configured",
                code="auth.totp_unavailable",
            )
        async with ctx.resources.sessions() as db:
            user = await get_user(db, flow.user_uuid(challenge))
        if user is None or user.disabled:
            await ctx.store.delete_challenge(challenge.id)
            raise flow.challenge_ended()
        verdict = await second_factor_attempt(ctx, request, CODE, user, challenge)
        accepted = await _code_accepted(ctx, user, data.code, ctx.secrets_key)
        if accepted is None:
            await _wrong_code(ctx, request, challenge, user, verdict)
        await second_factor_passed(ctx, CODE, user)
        if accepted == RECOVERY_CODE:
            await _recovery_code_used(ctx, request, challenge, user)
        first = [m for m in challenge.amr if m not in (AMR_OTP, AMR_MFA)] or [AMR_PASSWORD]
        challenge.amr = [*first, AMR_OTP, AMR_MFA]  # pwd or face, then the code
        challenge.acr = ACR_TWO_FACTOR
        return answer_step(await flow.finish_authentication(ctx, request, challenge, user))

    @post("/consent", operation_id="consent", status_code=200)
    async def consent(self, request: AnyRequest, data: JSONBody[ConsentBody]) -> StepAnswer:
        """Approve (remembered per person and client) or deny the requested scopes."""
        ctx = context_of(request)
        challenge = await flow.load_challenge(ctx, data.challenge, "consent")
        cookie = request.cookies.get(ctx.settings.session_cookie_name)
        session = await ctx.store.get_session(cookie)
        if session is None or session.sid != challenge.session_sid:
            raise PermissionDenied(
                "this browser is not signed in for this request", code="auth.session_mismatch"
            )
        client = await flow.load_client(ctx, challenge)
        # Only what this person may give this client is remembered (issue #19, 17): a
        # scope granted to them later is asked for again, not released on an old "yes".
        granted = await grantable_scopes(ctx, challenge, client)
        entry = AuditEntry(
            action="consent.granted" if data.approve else "consent.denied",
            status_code=200,
            ip=caller_ip(request),
            actor=challenge.user_id,
            target_type="client",
            target=client.client_id,
            detail={"scopes": granted if data.approve else list(challenge.scopes)},
        )
        async with ctx.resources.sessions.begin() as db:
            if data.approve:
                await grant_consent(db, flow.user_uuid(challenge), client.pk, granted)
            write_audit(db, entry)
        if data.approve:
            challenge.step = "done"
            await ctx.store.save_challenge(challenge)
            return flow.done(ctx, challenge)
        await ctx.store.delete_challenge(challenge.id)
        target = error_redirect(
            challenge.redirect_uri,
            error="access_denied",
            state=challenge.state,
            issuer=ctx.settings.issuer,
        )
        return StepAnswer(next="done", redirect_to=target)


async def _verify_password(
    ctx: SigninContext, request: AnyRequest, account: str, password: str, challenge: Challenge
) -> SignInFacts:
    """The person, or 401 after the same work whether the account exists or not."""
    async with ctx.resources.sessions() as db:
        facts = await sign_in_facts(db, account)
    user = None if facts is None else facts.user
    stored = None if facts is None else facts.password_hash
    if stored is None:
        matched = await verify_password_dummy_async(password)
    else:
        matched = await verify_password_async(stored, password)
    if facts is not None and user is not None and matched and not user.disabled:
        await ctx.first_factor.clear(account)
        if stored is not None and needs_rehash(stored):
            new_hash = await hash_password_async(password)
            async with ctx.resources.sessions.begin() as db:
                await set_password_hash(db, user.id, new_hash)
        return facts
    reason = "unknown_account" if user is None else "disabled" if user.disabled else "password"
    await refuse_credentials(ctx, request, account, challenge, user, {"reason": reason})


async def refuse_credentials(
    ctx: SigninContext,
    request: AnyRequest,
    account: str,
    challenge: Challenge,
    user: UserRecord | None,
    detail: dict[str, str],
) -> NoReturn:
    """A failed first factor (already counted by the account throttle), audited
    ``login.failed`` with ``detail``, and one 401 whatever the cause."""
    actor = None if user is None else str(user.id)
    await flow.audit_step(ctx, request, challenge, "login.failed", 401, actor=actor, detail=detail)
    raise Unauthenticated(WRONG_CREDENTIALS, code="auth.invalid_credentials")


async def _code_accepted(ctx: SigninContext, user: UserRecord, code: str, key: bytes) -> str | None:
    """``"totp"`` or ``RECOVERY_CODE`` (an unused one-time recovery code, now spent) when
    ``code`` is accepted; None otherwise."""
    async with ctx.resources.sessions.begin() as db:
        credential = await get_totp(db, user.id)
        if credential is None or not credential.confirmed:
            return None
        recovery = recovery_code_digest(code)
        if recovery is not None:
            return RECOVERY_CODE if await spend_recovery_code(db, user.id, recovery) else None
        try:
            secret = open_sealed(
                credential.secret_encrypted, key=key, context=totp_context(user.id)
            ).decode("ascii")
            step = match_totp_step(
                secret, code, now=time.time(), last_used_step=credential.last_used_step
            )
        except (SecretboxError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            log.error("TOTP secret of %s is unusable: %s", user.id, exc)
            raise ServiceUnavailable(
                "one-time codes cannot be checked right now", code="auth.totp_unavailable"
            ) from exc
        return "totp" if step is not None and await use_totp_step(db, user.id, step) else None


async def _recovery_code_used(
    ctx: SigninContext, request: AnyRequest, challenge: Challenge, user: UserRecord
) -> None:
    await flow.audit_step(
        ctx, request, challenge, "totp.recovery_code_used", 200, actor=str(user.id)
    )


async def _wrong_code(
    ctx: SigninContext,
    request: AnyRequest,
    challenge: Challenge,
    user: UserRecord,
    verdict: Verdict,
) -> None:
    """The failure is counted on the person's code counter (which may now lock); the fifth
    of one challenge ends it (the person starts again)."""
    challenge.failed_codes += 1
    ended = challenge.failed_codes >= MAX_WRONG_CODES
    detail = {"failures": challenge.failed_codes, "challenge_ended": ended}
    await flow.audit_step(
        ctx, request, challenge, "totp.failed", 401, actor=str(user.id), detail=detail
    )
    await second_factor_failed(ctx, request, CODE, user, challenge, verdict)
    if ended:
        await ctx.store.delete_challenge(challenge.id)
        raise Unauthenticated("too many wrong codes; sign in again", code="auth.challenge_ended")
    await ctx.store.save_challenge(challenge)
    raise Unauthenticated("wrong code", code="auth.invalid_code")
