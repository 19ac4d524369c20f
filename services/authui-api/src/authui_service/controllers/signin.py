"""``/api/v1/auth/challenge/{id}``, ``/login``, ``/totp``, ``/consent`` (docs/design.md "Wire
contracts": the shapes are fixed there)."""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import JSONBody

from authui_service import flow, outcomes
from authui_service.attempts import (
    CODE,
    first_factor_attempt,
    first_factor_not_evaluated,
    second_factor_attempt,
    second_factor_passed,
)
from authui_service.codes import RECOVERY_CODE, code_accepted, recovery_code_used, wrong_code
from authui_service.context import SigninContext, context_of
from authui_service.controllers.branding import brand_for
from authui_service.rules import challenge_kind, error_redirect
from authui_service.schemas import (
    ChallengeRead,
    ClientInfo,
    ConsentBody,
    LoginBody,
    ScopeInfo,
    StepAnswer,
    TotpBody,
)
from authui_service.steps import (
    answer_step,
    face_offered,
    first_factor_passed,
    passkey_offered,
    refuse_credentials,
)
from idp_common.crypto.passwords import (
    hash_password_async,
    needs_rehash,
    verify_password_async,
    verify_password_dummy_async,
)
from idp_common.errors import (
    NotFound,
    PermissionDenied,
    ServiceUnavailable,
)
from idp_common.protocol.constants import (
    ACR_TWO_FACTOR,
    AMR_MFA,
    AMR_OTP,
    AMR_PASSWORD,
    OIDC_SCOPE_DESCRIPTIONS,
)
from idp_common.protocol.rfc4647_locales import negotiate_ui_locale
from idp_common.protocol.rfc6749_scope import narrow_scope
from idp_common.state.challenges import Challenge
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.clients import ClientRecord, scope_descriptions
from idp_common.storage.repos.consents import grant_consent
from idp_common.storage.repos.credentials import replace_password_hash
from idp_common.storage.repos.users import (
    SignInFacts,
    effective_scopes,
    get_ui_locale,
    get_user,
    sign_in_facts,
)
from idp_common.web.caller import caller_ip

log = logging.getLogger("idp.signin")
AnyRequest = Request[Any, Any, Any]


async def grantable_scopes(
    ctx: SigninContext, challenge: Challenge, client: ClientRecord
) -> list[str]:
    """The requested scopes this person may give this client (what a code would carry):
    consent is asked and remembered for these only."""
    if challenge.user_id is None:
        return list(challenge.scopes)
    async with ctx.resources.sessions() as db:
        held = await effective_scopes(db, flow.user_uuid(challenge))
    return narrow_scope(challenge.scopes, client.scopes, held)


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
            saved = await get_ui_locale(db, challenge.user_id) if challenge.user_id else None
        locale = negotiate_ui_locale(
            ui_locales=challenge.ui_locales,
            saved=saved,
            accept_language=request.headers.get("accept-language"),
        )
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
            brand=await brand_for(ctx, client.pk),
            locale=locale,
            face=face_offered(ctx, challenge),
            passkey=await passkey_offered(ctx, challenge),
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
        accepted = await code_accepted(ctx, user, data.code, ctx.secrets_key)
        if accepted is None:
            outcomes.counted(outcomes.code_method(data.code), outcomes.WRONG_CODE)
            await wrong_code(ctx, request, challenge, user, verdict)
        outcomes.counted(accepted, outcomes.SUCCESS)  # "totp" or "recovery_code"
        await second_factor_passed(ctx, CODE, user)
        if accepted == RECOVERY_CODE:
            await recovery_code_used(ctx, request, challenge, user)
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
        # Only what this person may give this client is remembered (docs/security.md,
        # attack 17): a scope granted to them later is asked for again, not released on
        # an old "yes".
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


async def _facts_of(ctx: SigninContext, account: str) -> SignInFacts | None:
    """The account named ``account`` (one holding NUL names none: ``sign_in_facts``), so
    an unknown one is refused after the same work as any other."""
    async with ctx.resources.sessions() as db:
        return await sign_in_facts(db, account)


async def _verify_password(
    ctx: SigninContext, request: AnyRequest, account: str, password: str, challenge: Challenge
) -> SignInFacts:
    """The person, or 401 after the same work whether the account exists or not."""
    try:
        facts = await _facts_of(ctx, account)
    except Exception as exc:  # nothing checked yet: an outage counts no failure
        await first_factor_not_evaluated(ctx, account, exc)
        raise
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
                # only over the hash just verified: never over a password changed meanwhile
                if await replace_password_hash(db, user.id, stored, new_hash):
                    return msgspec.structs.replace(facts, password_hash=new_hash)
        return facts
    reason = "unknown_account" if user is None else "disabled" if user.disabled else "password"
    await refuse_credentials(ctx, request, account, challenge, user, {"reason": reason})
