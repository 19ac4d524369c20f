"""The one-time code step of sign-in: an authenticator's code (±1 step, never the same
step twice) or an unused recovery code; the fifth wrong code of a challenge ends it."""

from __future__ import annotations

import logging
import time
from typing import Any, NoReturn

from litestar import Request

from authui_service import flow
from authui_service.attempts import CODE, second_factor_failed
from authui_service.context import SigninContext
from authui_service.throttle import Verdict
from idp_common.crypto.secretbox import SecretboxError, open_sealed, totp_context
from idp_common.errors import ServiceUnavailable, Unauthenticated
from idp_common.protocol.rfc6238_totp import match_totp_step, recovery_code_digest
from idp_common.state.challenges import Challenge
from idp_common.storage.repos.credentials import get_totp, spend_recovery_code, use_totp_step
from idp_common.storage.repos.users import UserRecord

log = logging.getLogger("idp.signin")
AnyRequest = Request[Any, Any, Any]
MAX_WRONG_CODES = 5
RECOVERY_CODE = "recovery_code"


async def code_accepted(ctx: SigninContext, user: UserRecord, code: str, key: bytes) -> str | None:
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


async def recovery_code_used(
    ctx: SigninContext, request: AnyRequest, challenge: Challenge, user: UserRecord
) -> None:
    await flow.audit_step(
        ctx, request, challenge, "totp.recovery_code_used", 200, actor=str(user.id)
    )


async def wrong_code(
    ctx: SigninContext,
    request: AnyRequest,
    challenge: Challenge,
    user: UserRecord,
    verdict: Verdict,
) -> NoReturn:
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
