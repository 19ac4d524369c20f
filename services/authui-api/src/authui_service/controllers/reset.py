"""``/api/v1/auth/password-reset`` and ``/password-reset/confirm`` (docs/design.md §2 "Sign-in":
the same answer whatever the address; a single-use link, 30 minutes, stored as a digest,
mailed through SMTP; confirming ends all the person's sessions and mails them a
``credential_changed`` notice, :mod:`idp_common.operations.credential_notice`)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from litestar import Controller, Request, Response, post
from litestar.background_tasks import BackgroundTask
from litestar.params import JSONBody

from authui_service.context import SigninContext, context_of
from authui_service.schemas import ResetAccepted, ResetConfirmBody, ResetRequestBody
from idp_common.errors import FieldError, InvalidArgument
from idp_common.operations.branded_mail import branded_message, person_mail_locale
from idp_common.operations.credential_notice import notice_of, notice_task
from idp_common.operations.mail import MailError, send_mail
from idp_common.storage.repos import reset_tokens
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.users import UserRecord, get_user, get_user_by_email
from idp_common.usecases.password_change import hash_new_password, set_password
from idp_common.web.caller import caller_ip

log = logging.getLogger("idp.reset")
AnyRequest = Request[Any, Any, Any]
#: Reset mails per account per hour, whatever the caller's address: a victim's mailbox
#: cannot be flooded from many addresses. Past it, the answer is unchanged; no mail.
MAILS_PER_ACCOUNT_PER_HOUR = 5


class PasswordResetController(Controller):
    path = "/api/v1/auth/password-reset"
    tags = ["sign-in"]

    @post("/", operation_id="requestPasswordReset", status_code=202)
    async def request_reset(
        self, request: AnyRequest, data: JSONBody[ResetRequestBody]
    ) -> Response[ResetAccepted]:
        """Ask for a reset link: 202 and the same body whatever the address.

        The account is looked up, the token stored and the mail sent after the answer has
        been sent (a background task), so the answer takes the same time for every address.
        """
        ctx = context_of(request)
        ip = caller_ip(request)
        await ctx.limit_reset(ip)
        # The mail's language: the person's saved one, else this request's, else the
        # deployment's (docs/languages.md): the person asked for this mail themselves.
        accept_language = request.headers.get("accept-language")
        task = BackgroundTask(_process_reset_request, ctx, data.email.strip(), ip, accept_language)
        return Response(ResetAccepted(), status_code=202, background=task)

    @post("/confirm", operation_id="confirmPasswordReset", status_code=204)
    async def confirm_reset(
        self, request: AnyRequest, data: JSONBody[ResetConfirmBody]
    ) -> Response[None]:
        """Set a new password with a reset link; ends every session of the person. After
        the answer the person is mailed a notice that the password changed."""
        ctx = context_of(request)
        ip = caller_ip(request)
        await ctx.limit_signin(ip)
        user = await _reset_target(ctx, data.token)
        new_hash = await hash_new_password(data.password, context=(user.email, user.username))
        now = datetime.now(UTC)
        async with ctx.resources.sessions.begin() as db:
            if await reset_tokens.consume_reset_token(db, data.token, now=now) != user.id:
                raise _invalid_token()
            await reset_tokens.spend_reset_tokens_of(db, user.id, now=now)
            await set_password(
                db,
                ctx.store,
                user.id,
                new_hash,
                reason="password_reset",
                nats_prefix=ctx.settings.nats_prefix,
                audit=AuditEntry(
                    action="password_reset.completed", status_code=204, ip=ip, actor=str(user.id)
                ),
            )
        await ctx.first_factor.clear(user.email.lower())
        notice = notice_of(request, user.id, "password", "changed")
        return Response(None, status_code=204, background=notice_task(ctx.resources, notice))


def _invalid_token() -> InvalidArgument:
    return InvalidArgument(
        "the reset link is not valid: it was used, it expired, or it is not ours",
        code="auth.reset_token_invalid",
        errors=[FieldError("token", "invalid, used or expired")],
    )


async def _reset_target(ctx: SigninContext, token: str) -> UserRecord:
    """The person a live token belongs to (422 naming ``token`` otherwise); not spent yet,
    so a password refused by the policy leaves the link usable."""
    async with ctx.resources.sessions() as db:
        user_id = await reset_tokens.find_reset_token(db, token, now=datetime.now(UTC))
        user = None if user_id is None else await get_user(db, user_id)
    if user is None or user.disabled:
        raise _invalid_token()
    return user


async def _process_reset_request(
    ctx: SigninContext, email: str, ip: str, accept_language: str | None
) -> None:
    """After the 202: store a token and mail the link when the account exists. Never
    raises: a failure here must not be visible to the caller."""
    try:
        mail = await _store_reset_token(ctx, email, ip, accept_language)
        if mail is not None:
            await send_mail(ctx.settings.smtp_url, mail)
    except MailError as exc:
        log.warning("password reset: mail not sent (%s)", exc)
    except Exception:  # the answer went out already; log and drop
        log.exception("password reset: request not processed")


async def _store_reset_token(
    ctx: SigninContext, email: str, ip: str, accept_language: str | None
) -> Any:
    now = datetime.now(UTC)
    async with ctx.resources.sessions.begin() as db:
        user = await get_user_by_email(db, email)
        sendable = user is not None and not user.disabled
        if user is not None and sendable:
            quota = await ctx.resources.limiter.hit(
                "reset_account", str(user.id), limit=MAILS_PER_ACCOUNT_PER_HOUR, window_seconds=3600
            )
            sendable = quota.allowed
        write_audit(db, _requested_entry(user, ip, sendable))
        if user is None or not sendable:
            return None
        token = await reset_tokens.create_reset_token(db, user.id, now=now)
        return await branded_message(
            db,
            ctx.settings,
            kind="password_reset",
            locale=await person_mail_locale(db, ctx.settings, user.id, accept_language),
            to=user.email,
            values={
                "name": user.display_name or user.email,
                "link": f"{ctx.settings.auth_ui_url}/reset?token={token}",
                "valid_seconds": reset_tokens.RESET_TOKEN_SECONDS,
            },
        )


def _requested_entry(user: UserRecord | None, ip: str, mailed: bool) -> AuditEntry:
    """No address in the record when no account uses it (it may be anyone's typo)."""
    return AuditEntry(
        action="password_reset.requested",
        status_code=202,
        ip=ip,
        actor=None if user is None else str(user.id),
        target_type="user",
        target=None if user is None else str(user.id),
        detail={"account": "unknown"} if user is None else {"mailed": mailed},
    )
