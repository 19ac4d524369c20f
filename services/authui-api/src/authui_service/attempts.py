"""Counting sign-in attempts against the throttles (:mod:`authui_service.throttle`), and
what a locked second factor does: it is audited and the person is told by mail that
someone who knows their password (or holds their photo) is trying to get in.

Every attempt is counted before it is evaluated (:meth:`Throttle.attempt`); a refused
attempt is a 429 with ``Retry-After``, audited, and never evaluated.
"""

from __future__ import annotations

import time
from typing import Any, Final

from litestar import Request

from authui_service import flow, outcomes
from authui_service.context import SigninContext
from authui_service.throttle import Verdict, delay_after, factor_subject
from idp_common.errors import RateLimited
from idp_common.operations.branded_mail import branded_message, person_notice_locale
from idp_common.operations.mail import send_mail
from idp_common.state.challenges import Challenge
from idp_common.storage.repos.users import UserRecord
from idp_common.web.dependency_errors import is_dependency_failure

AnyRequest = Request[Any, Any, Any]
#: Second-factor kinds: one-time and recovery codes share ``code``.
CODE: Final = "code"
FACE: Final = "face"
PASSKEY: Final = "passkey"
#: At most one lock notice per person and factor in this many seconds.
NOTICE_EVERY_SECONDS: Final = 24 * 3600


async def first_factor_attempt(
    ctx: SigninContext,
    request: AnyRequest,
    account: str,
    challenge: Challenge,
    method: str = outcomes.METHOD_PASSWORD,
) -> None:
    """Count one password (or face-instead-of-password) attempt for ``account``; 429 while
    the account waits out its delay (alike for unknown accounts)."""
    verdict = await ctx.first_factor.attempt(account, time.time())
    if not verdict.allowed:
        await _refused(ctx, request, challenge, "login.throttled", verdict, actor=None)
        outcomes.counted(method, outcomes.THROTTLED)
        raise RateLimited(
            "too many failed sign-ins for this account; wait and try again",
            retry_after=verdict.retry_after,
            code="auth.account_throttled",
        )


async def first_factor_not_evaluated(ctx: SigninContext, account: str, exc: BaseException) -> None:
    """Give back the attempt :func:`first_factor_attempt` counted when ``exc``, a failed
    dependency, stopped the sign-in before the password was checked (nothing was guessed).
    Best effort: the same outage may take Redis too; ``exc`` is raised on either way."""
    if not is_dependency_failure(exc):
        return
    try:
        await ctx.first_factor.give_back(account)
    except Exception as again:  # the counter stays: the delay is short below five
        if not is_dependency_failure(again):
            raise


async def first_factor_waits(
    ctx: SigninContext,
    request: AnyRequest,
    account: str,
    challenge: Challenge,
    method: str = outcomes.METHOD_FACE,
) -> None:
    """The same refusal as :func:`first_factor_attempt` without counting: a cheap check
    before expensive work (decoding a face image)."""
    wait = await ctx.first_factor.retry_after(account, time.time())
    if wait:
        verdict = Verdict(allowed=False, retry_after=wait, failures=0)
        await _refused(ctx, request, challenge, "login.throttled", verdict, actor=None)
        outcomes.counted(method, outcomes.THROTTLED)
        raise RateLimited(
            "too many failed sign-ins for this account; wait and try again",
            retry_after=wait,
            code="auth.account_throttled",
        )


async def count_second_factor(
    ctx: SigninContext, request: AnyRequest, factor: str, user: UserRecord, challenge: Challenge
) -> Verdict:
    """Count one attempt at the person's ``factor`` (a refusal is audited, not raised:
    where the answer must not tell that the account exists, the caller refuses alike)."""
    verdict = await ctx.second_factor.attempt(factor_subject(factor, user.id), time.time())
    if not verdict.allowed:
        await _refused(
            ctx, request, challenge, "second_factor.throttled", verdict, actor=user, factor=factor
        )
    return verdict


async def second_factor_attempt(
    ctx: SigninContext, request: AnyRequest, factor: str, user: UserRecord, challenge: Challenge
) -> Verdict:
    """Count one attempt at the person's ``factor``; 429 ``auth.factor_throttled`` while
    the factor is locked. A correct password never unlocks it."""
    verdict = await count_second_factor(ctx, request, factor, user, challenge)
    if not verdict.allowed:
        outcomes.counted(outcomes.factor_method(factor), outcomes.THROTTLED)
        raise RateLimited(
            "too many wrong attempts at this step; wait and try again",
            retry_after=verdict.retry_after,
            code="auth.factor_throttled",
        )
    return verdict


async def second_factor_passed(ctx: SigninContext, factor: str, user: UserRecord) -> None:
    await ctx.second_factor.clear(factor_subject(factor, user.id))


async def second_factor_failed(
    ctx: SigninContext,
    request: AnyRequest,
    factor: str,
    user: UserRecord,
    challenge: Challenge,
    verdict: Verdict,
) -> None:
    """After a wrong code or face: when this failure locks the factor, audit
    ``second_factor.locked`` and mail the person (at most once a day per factor)."""
    policy = ctx.second_factor.policy
    if verdict.failures < policy.free:
        return
    delay = delay_after(verdict.failures, policy)
    detail = {"factor": factor, "failures": verdict.failures, "retry_after": delay}
    await flow.audit_step(
        ctx, request, challenge, "second_factor.locked", 429, actor=str(user.id), detail=detail
    )
    notice_key = f"{ctx.settings.redis_prefix}factor-notice:{factor}:{user.id}"
    if await ctx.store.redis.set(notice_key, b"1", nx=True, ex=NOTICE_EVERY_SECONDS):
        notice = _lock_notice(ctx, user, factor, verdict.failures, delay)
        ctx.in_background(notice, "lock notice mail")


async def _lock_notice(
    ctx: SigninContext, user: UserRecord, factor: str, failures: int, delay: int
) -> None:
    """Mail the person that a factor locked (``factor_locked``, docs/mail-templates.md), in
    their saved language, else the deployment's: never the failing request's, which is
    likely not the owner's. The mail holds no link: a mail that asks for a click is what
    phishing looks like."""
    async with ctx.resources.sessions() as db:
        message = await branded_message(
            db,
            ctx.settings,
            kind="factor_locked",
            locale=await person_notice_locale(db, ctx.settings, user.id),
            to=user.email,
            values={
                "name": user.display_name or user.email,
                "factor": factor if factor in (CODE, PASSKEY, FACE) else CODE,
                "failures": failures,
                "delay_seconds": delay,
            },
        )
    await send_mail(ctx.settings.smtp_url, message)


async def _refused(
    ctx: SigninContext,
    request: AnyRequest,
    challenge: Challenge,
    action: str,
    verdict: Verdict,
    *,
    actor: UserRecord | None,
    factor: str | None = None,
) -> None:
    outcomes.throttle_refused(factor)
    detail: dict[str, object] = {"retry_after": verdict.retry_after}
    if factor is not None:
        detail["factor"] = factor
    actor_id = None if actor is None else str(actor.id)
    await flow.audit_step(ctx, request, challenge, action, 429, actor=actor_id, detail=detail)
